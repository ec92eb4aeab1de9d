package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/reconcile"
)

// The first interrupt drains the pass and lets its running work finish on
// an uncancelled context; a second ends it (issue 27).
func TestInterruptible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		interrupt int // how many signals arrive while the pass runs
		want      interrupted
		wantErr   error
		says      []string
	}{
		{"none", 0, interrupted{}, nil, nil},
		{"one: the running work finishes", 1, interrupted{first: true}, nil,
			[]string{"gallivant: interrupted: no new agent starts; a running agent may finish", "the pass finished the work it had started"}},
		{"two: the pass and its agent are ended", 2, interrupted{first: true, ended: true}, agent.ErrEnded,
			[]string{"interrupt again to end it now", "interrupted twice: the pass was ended; what it pushed stands, and an agent it ended is settled or re-run at once by the next pass"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, signal := context.WithCancel(context.Background())
			defer signal()
			second := make(chan os.Signal, 1)
			listening := make(chan struct{})
			listen := func() (<-chan os.Signal, func()) { close(listening); return second, func() {} }
			drained := make(chan struct{})
			var out bytes.Buffer
			rep, in, err := interruptible(ctx, listen, func() { close(drained) }, &out, func(passCtx context.Context) (*reconcile.Report, error) {
				switch tt.interrupt {
				case 0:
					return &reconcile.Report{}, nil
				case 1:
					signal()
					<-drained
					<-listening
					if passCtx.Err() != nil {
						t.Errorf("the first interrupt cancelled the pass")
					}
					return &reconcile.Report{}, nil
				}
				signal()
				<-listening
				second <- os.Interrupt
				<-passCtx.Done()
				return &reconcile.Report{}, errors.Join(passCtx.Err(), agent.ErrEnded)
			})
			if in != tt.want {
				t.Errorf("interrupted = %+v; want %+v", in, tt.want)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("pass error %v; want %v", err, tt.wantErr)
			}
			exit := interruptExit(&out, in, rep, err, "GITHUB_TOKEN")
			var ee *exitError
			switch {
			case tt.want.ended && (!errors.As(exit, &ee) || ee.code != exitCannotRun):
				t.Errorf("exit %v; want exit %d", exit, exitCannotRun)
			case !tt.want.ended && exit != nil:
				t.Errorf("exit %v; want 0", exit)
			}
			got := out.String()
			if exit != nil {
				got += exit.(*exitError).err.Error()
			}
			for _, s := range tt.says {
				if !strings.Contains(got, s) {
					t.Errorf("the output lacks %q:\n%s", s, got)
				}
			}
			if tt.interrupt == 0 && got != "" {
				t.Errorf("an uninterrupted pass said %q", got)
			}
		})
	}
}
