package specs

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Notification target formats.
const (
	NotifyJSON  = "json"  // gallivant's own JSON object
	NotifySlack = "slack" // a Slack-compatible incoming-webhook payload ({"text": …})
)

// Notification subscriptions, the words of a target's on: list.
const (
	OnStops   = "stops"   // every stop, stuck ones included
	OnStuck   = "stuck"   // stuck stops only: a GitHub write that kept failing
	OnResumes = "resumes" // a stop cleared
	OnReady   = "ready"   // a pull request became ready for a person
	OnDone    = "done"    // the pull request merged
)

var notifyNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// NotifyTarget is one entry of `notify:` in gallivant.yaml: a webhook that
// hears of the transitions it asks for.
type NotifyTarget struct {
	// Name identifies the target in ledgers (`notify:` tokens); it must
	// stay stable while notifications are owed.
	Name string
	// URL is where the notification is POSTed; URLEnv names an
	// environment variable holding it instead (a Slack webhook URL is a
	// secret and belongs in the environment, not in the repository).
	URL, URLEnv string
	// Format is NotifyJSON or NotifySlack.
	Format string
	// On lists the subscriptions (OnStops, …).
	On []string
}

// Wants reports whether the target subscribes to a notification event
// (ledger.NotifyEvent's values: stop, stuck, resume, ready, done).
func (t NotifyTarget) Wants(event string) bool {
	switch event {
	case "stop":
		return slices.Contains(t.On, OnStops)
	case "stuck":
		return slices.Contains(t.On, OnStops) || slices.Contains(t.On, OnStuck)
	case "resume":
		return slices.Contains(t.On, OnResumes)
	case "ready":
		return slices.Contains(t.On, OnReady)
	case "done":
		return slices.Contains(t.On, OnDone)
	}
	return false
}

// NotifyTarget returns the target of a name.
func (c *Config) NotifyTarget(name string) (NotifyTarget, bool) {
	for _, t := range c.Notify {
		if t.Name == name {
			return t, true
		}
	}
	return NotifyTarget{}, false
}

// NotifyWants lists the names of the targets that want event, in
// configuration order.
func (c *Config) NotifyWants(event string) []string {
	var out []string
	for _, t := range c.Notify {
		if t.Wants(event) {
			out = append(out, t.Name)
		}
	}
	return out
}

// notify decodes the `notify:` list.
func (d *yamlDecoder) notify(dst *[]NotifyTarget) func(*yaml.Node) {
	return func(n *yaml.Node) {
		if n.Kind != yaml.SequenceNode {
			if n.Tag != "!!null" {
				d.errorf(n, "config/type", "notify must be a list of targets, got %s", kindName(n))
			}
			return
		}
		seen := map[string]bool{}
		for _, item := range n.Content {
			t := NotifyTarget{Format: NotifyJSON}
			d.mapping(item, "notify[]", map[string]func(*yaml.Node){
				"name":    d.str(&t.Name, notifyName),
				"url":     d.str(&t.URL, notifyURL),
				"url_env": d.str(&t.URLEnv, envName),
				"format":  d.str(&t.Format, oneOf(NotifyJSON, NotifySlack)),
				"on":      d.strings(&t.On),
			})
			if item.Kind != yaml.MappingNode {
				continue
			}
			switch {
			case t.Name == "":
				d.errorf(item, "config/invalid", "a notify target needs a name (lower-case letters, digits and dashes), which ledgers use to owe it notifications")
				continue
			case seen[t.Name]:
				d.errorf(item, "config/invalid", "notify target %s is listed twice; names must be unique", t.Name)
				continue
			case (t.URL == "") == (t.URLEnv == ""):
				d.errorf(item, "config/invalid", "notify target %s needs exactly one of url and url_env", t.Name)
				continue
			case len(t.On) == 0:
				d.errorf(item, "config/invalid", "notify target %s needs on: a list of %s", t.Name, strings.Join(notifyOn, ", "))
				continue
			}
			bad := false
			for _, on := range t.On {
				if !slices.Contains(notifyOn, on) {
					d.errorf(item, "config/invalid", "notify target %s: on lists %q; expected some of %s", t.Name, on, strings.Join(notifyOn, ", "))
					bad = true
				}
			}
			if bad {
				continue
			}
			seen[t.Name] = true
			*dst = append(*dst, t)
		}
	}
}

var notifyOn = []string{OnStops, OnStuck, OnResumes, OnReady, OnDone}

func notifyName(s string) error {
	if !notifyNameRE.MatchString(s) {
		return fmt.Errorf("must be lower-case letters, digits and dashes (at most 40), got %q", s)
	}
	return nil
}

func notifyURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("must be an http or https URL, got %q", s)
	}
	return nil
}

// notifySecrets refuses an executor.env that would hand the agent a
// notification URL: url_env names a secret (a Slack webhook URL lets
// anyone post to the channel).
func (d *yamlDecoder) notifySecrets(root *yaml.Node, cfg *Config) {
	n := find(root, "executor", "env")
	if n == nil {
		return
	}
	for _, t := range cfg.Notify {
		for i, name := range cfg.Executor.Env {
			if t.URLEnv != "" && name == t.URLEnv && i < len(n.Content) {
				d.errorf(n.Content[i], "config/invalid", "executor.env must not pass %s to the agent: it holds notify target %s's URL, a secret", name, t.Name)
			}
		}
	}
}
