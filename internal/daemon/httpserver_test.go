package daemon

import "testing"

func TestListenAddr(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"9402", "127.0.0.1:9402"},
		{":9402", "127.0.0.1:9402"},
		{"0.0.0.0:9402", "0.0.0.0:9402"},
		{"[::1]:9402", "[::1]:9402"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ListenAddr(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ListenAddr(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	if _, err := ListenAddr("host:"); err == nil {
		t.Error("ListenAddr accepted an address without a port")
	}
}
