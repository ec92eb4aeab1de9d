package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

const repoRoot = "../.."

// A build with the release -ldflags prints the stamped version, commit
// and date; the version flag prints the version alone.
func TestVersionStamp(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "gallivant")
	ldflags := "-X main.stampVersion=v9.8.7 -X main.stampCommit=abc1234 -X main.stampDate=2026-01-02T03:04:05Z"
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct{ arg, want string }{
		{"version", "gallivant v9.8.7 (commit abc1234, built 2026-01-02T03:04:05Z)\n"},
		{"--version", "gallivant v9.8.7\n"},
	} {
		out, err := exec.Command(bin, tc.arg).Output()
		if err != nil {
			t.Fatalf("gallivant %s: %v", tc.arg, err)
		}
		if diff := cmp.Diff(tc.want, string(out)); diff != "" {
			t.Errorf("gallivant %s (-want +got):\n%s", tc.arg, diff)
		}
	}
}

// goreleaserConfig is the part of goreleaser v2's configuration that
// .goreleaser.yaml uses. Decoded with KnownFields, a key goreleaser v2 does
// not document in these sections (a typo, a v1 spelling such as
// archives.format) fails the test.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID           string   `yaml:"id"`
		Main         string   `yaml:"main"`
		Binary       string   `yaml:"binary"`
		Env          []string `yaml:"env"`
		Goos         []string `yaml:"goos"`
		Goarch       []string `yaml:"goarch"`
		Flags        []string `yaml:"flags"`
		Ldflags      []string `yaml:"ldflags"`
		ModTimestamp string   `yaml:"mod_timestamp"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		IDs             []string `yaml:"ids"`
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Snapshot struct {
		VersionTemplate string `yaml:"version_template"`
	} `yaml:"snapshot"`
	Changelog struct {
		Disable bool `yaml:"disable"`
	} `yaml:"changelog"`
	Release struct {
		GitHub struct {
			Owner string `yaml:"owner"`
			Name  string `yaml:"name"`
		} `yaml:"github"`
		Draft      bool   `yaml:"draft"`
		Prerelease string `yaml:"prerelease"`
	} `yaml:"release"`
}

// CI cannot run goreleaser (docs/releasing.md says why): this test checks
// what a release depends on instead.
func TestReleaseConfig(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cfg goreleaserConfig
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || cfg.ProjectName != "gallivant" || len(cfg.Builds) != 1 || len(cfg.Archives) != 1 {
		t.Fatalf("want version 2, project gallivant, one build and one archive: %+v", cfg)
	}
	b := cfg.Builds[0]
	if b.Main != "./cmd/gallivant" || b.Binary != "gallivant" {
		t.Errorf("build main %q binary %q, want ./cmd/gallivant and gallivant", b.Main, b.Binary)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("build env %v lacks CGO_ENABLED=0: the archives must be static", b.Env)
	}
	var pairs []string
	for _, os := range b.Goos {
		for _, arch := range b.Goarch {
			pairs = append(pairs, os+"/"+arch)
		}
	}
	slices.Sort(pairs)
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}
	if diff := cmp.Diff(want, pairs); diff != "" {
		t.Errorf("os/arch pairs (-want +got):\n%s", diff)
	}
	ld := strings.Join(b.Ldflags, " ")
	// The variables exist (this package would not compile otherwise) and
	// the flags name them.
	_, _, _ = stampVersion, stampCommit, stampDate
	for _, stamp := range []string{"-X main.stampVersion={{.Tag}}", "-X main.stampCommit={{.ShortCommit}}", "-X main.stampDate={{.Date}}"} {
		if !strings.Contains(ld, stamp) {
			t.Errorf("ldflags %q lack %s", ld, stamp)
		}
	}
	a := cfg.Archives[0]
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("archive name_template %q: scripts/action-install.sh downloads gallivant_<version>_<os>_<arch>", a.NameTemplate)
	}
	if !slices.Equal(a.Formats, []string{"tar.gz"}) || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("archives: want tar.gz, zip on windows (the install script expects both): %+v", a)
	}
	for _, f := range a.Files {
		if m, _ := filepath.Glob(filepath.Join(repoRoot, f)); len(m) == 0 {
			t.Errorf("archive file %s matches nothing; goreleaser fails on it", f)
		}
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: the install script reads a sha256 checksums.txt", cfg.Checksum)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "action-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`archive="gallivant_${version#v}_${os}_${arch}.${ext}"`, `checksums.txt`, `ext=zip`} {
		if !strings.Contains(string(script), s) {
			t.Errorf("scripts/action-install.sh no longer has %s; keep it in step with .goreleaser.yaml", s)
		}
	}
	// The Dockerfile stamps the same variables.
	docker, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"-X main.stampVersion=", "-X main.stampCommit=", "-X main.stampDate=", "USER 10001", "apk add --no-cache git"} {
		if !strings.Contains(string(docker), s) {
			t.Errorf("Dockerfile lacks %q", s)
		}
	}
}

// action is the part of action.yml the tests read.
type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Uses string            `yaml:"uses"`
			If   string            `yaml:"if"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (action, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml is not YAML: %v", err)
	}
	return a, string(data)
}

// action.yml is a composite action whose steps run scripts that exist,
// restore the cache with actions/cache, and read only declared inputs;
// the workflow gallivant init writes passes only inputs it declares.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	a, text := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", a.Runs.Using)
	}
	if got := a.Inputs["command"].Default; got != "reconcile" {
		t.Errorf("command defaults to %q, want reconcile", got)
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, s.Uses)
		}
		for _, m := range regexp.MustCompile(`\$GITHUB_ACTION_PATH/(\S+\.sh)`).FindAllStringSubmatch(s.Run, -1) {
			if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
				t.Errorf("step runs %s: %v", m[1], err)
			}
		}
	}
	if diff := cmp.Diff([]string{"actions/cache/restore@v5", "actions/cache/save@v5"}, uses); diff != "" {
		t.Errorf("actions used (-want +got):\n%s", diff)
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(text, -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml reads undeclared input %s", m[1])
		}
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	body := scaffold(&initOptions{Executor: "none", Repo: "acme/api", Branch: "main"}, initExecutors["none"])[5].body
	if err := yaml.Unmarshal([]byte(body), &wf); err != nil {
		t.Fatal(err)
	}
	n := 0
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			if !strings.HasPrefix(s.Uses, "gallivant/gallivant@") {
				continue
			}
			n++
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("the scaffolded workflow's %s job passes %s, which action.yml does not declare", job, k)
				}
			}
		}
	}
	if n != 3 {
		t.Errorf("the scaffolded workflow uses the action %d times, want 3 (check, doctor and reconcile)", n)
	}
}

// fakeRelease writes a release vX of a fake gallivant for this machine
// under dir/download/vX/, with checksums.txt; corrupt spoils the checksum.
func fakeRelease(t *testing.T, dir, version string, corrupt bool) {
	t.Helper()
	work := t.TempDir()
	exe := "#!/bin/sh\necho gallivant " + version + "\n"
	if err := os.WriteFile(filepath.Join(work, "gallivant"), []byte(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(dir, "download", version)
	if err := os.MkdirAll(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("gallivant_%s_linux_%s.tar.gz", strings.TrimPrefix(version, "v"), runtime.GOARCH)
	if out, err := exec.Command("tar", "-czf", filepath.Join(rel, name), "-C", work, "gallivant").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(rel, name))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if corrupt {
		sum[0]++
	}
	line := hex.EncodeToString(sum[:]) + "  " + name + "\n"
	if err := os.WriteFile(filepath.Join(rel, "checksums.txt"), []byte("0000  gallivant_other.zip\n"+line), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The Action's install script against a directory of fake releases: it
// installs a release archive whose checksum matches, refuses one that does
// not, resolves latest, and falls back to go install of the same version
// (a stand-in go on PATH records the call) when there is no archive.
func TestActionInstallScript(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the fake releases are linux amd64/arm64 archives")
	}
	for _, tool := range []string{"bash", "curl", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the install script needs %s: %v", tool, err)
		}
	}
	script, err := filepath.Abs(filepath.Join(repoRoot, "scripts", "action-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	releases := t.TempDir()
	fakeRelease(t, releases, "v9.8.7", false)
	fakeRelease(t, releases, "v6.6.6", true)
	api := t.TempDir()
	if err := os.MkdirAll(filepath.Join(api, "repos", "gallivant", "gallivant", "releases"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(api, "repos", "gallivant", "gallivant", "releases", "latest"), []byte("{\n  \"tag_name\": \"v9.8.7\",\n  \"name\": \"v9.8.7\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A go that "installs" by writing a fake gallivant into GOBIN.
	fakeGo := t.TempDir()
	goScript := "#!/bin/sh\necho \"$@\" >> \"$GOCALLS\"\nif [ \"$1\" = build ]; then printf '#!/bin/sh\\necho gallivant source-%s\\n' \"$(basename \"$PWD\")\" > \"$4\"; exit 0; fi\nv=${2##*@}\nprintf '#!/bin/sh\\necho gallivant %s\\n' \"$v\" > \"$GOBIN/gallivant\"\n"
	actionPath := filepath.Join(t.TempDir(), "action")
	if err := os.MkdirAll(actionPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(actionPath, "go.mod"), []byte("module github.com/gallivant/gallivant\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fakeGo, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	tests := []struct {
		name, version string
		withGo        bool
		wantOK        bool
		wantVersion   string
		wantGoCall    string
		wantErr       string
		// actionRef is github.action_ref; noActionPath leaves
		// GITHUB_ACTION_PATH unset.
		actionRef    string
		noActionPath bool
	}{
		{"release archive", "v9.8.7", false, true, "v9.8.7", "", "", "", false},
		// Issue 29: by default the Action installs its own version.
		{"default: the release the Action's tag names", "", false, true, "v9.8.7", "", "", "v9.8.7", false},
		{"default at a major tag: the Action's own source", "", true, true, "source-action", "build -trimpath -o " + "BIN ./cmd/gallivant", "", "v1", false},
		{"default with no ref and no checkout", "", true, false, "", "", "pin the Action to a release", "", true},
		{"source without Go", "source", false, false, "", "", "needs Go", "", false},
		{"latest resolves to the newest release", "latest", false, true, "v9.8.7", "", "", "", false},
		{"checksum mismatch is refused, not built", "v6.6.6", true, false, "", "", "does not match the release's checksums.txt", "", false},
		{"no archive: go install of the same version", "v1.2.3", true, true, "v1.2.3", "install github.com/gallivant/gallivant/cmd/gallivant@v1.2.3", "", "", false},
		{"a branch: go install", "main", true, true, "main", "install github.com/gallivant/gallivant/cmd/gallivant@main", "", "", false},
		{"no archive and no go", "v1.2.3", false, false, "", "", "no Go to build it", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			path := "/usr/bin:/bin"
			if tc.withGo {
				path = fakeGo + ":" + path
			}
			cmd := exec.Command("bash", script)
			cmd.Env = []string{"PATH=" + path, "HOME=" + tmp, "RUNNER_OS=Linux", "RUNNER_ARCH=" + arch, "RUNNER_TEMP=" + tmp,
				"GITHUB_PATH=" + filepath.Join(tmp, "path"), "GITHUB_OUTPUT=" + filepath.Join(tmp, "output"), "GOCALLS=" + filepath.Join(tmp, "gocalls"),
				"GALLIVANT_VERSION=" + tc.version, "GALLIVANT_RELEASES=file://" + releases, "GALLIVANT_API=file://" + api, "GALLIVANT_ACTION_REF=" + tc.actionRef}
			if !tc.noActionPath {
				cmd.Env = append(cmd.Env, "GITHUB_ACTION_PATH="+actionPath)
			}
			out, err := cmd.CombinedOutput()
			if tc.wantOK != (err == nil) {
				t.Fatalf("install: %v, want ok %v\n%s", err, tc.wantOK, out)
			}
			if tc.wantErr != "" && !strings.Contains(string(out), tc.wantErr) {
				t.Errorf("output lacks %q:\n%s", tc.wantErr, out)
			}
			calls, _ := os.ReadFile(filepath.Join(tmp, "gocalls"))
			wantCall := strings.ReplaceAll(tc.wantGoCall, "BIN", filepath.Join(tmp, "gallivant-bin", "gallivant"))
			if diff := cmp.Diff(wantCall, strings.TrimSpace(string(calls))); diff != "" {
				t.Errorf("go calls (-want +got):\n%s", diff)
			}
			if !tc.wantOK {
				return
			}
			ran, err := exec.Command(filepath.Join(tmp, "gallivant-bin", "gallivant"), "version").Output()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("gallivant "+tc.wantVersion+"\n", string(ran)); diff != "" {
				t.Errorf("installed gallivant (-want +got):\n%s", diff)
			}
			output, _ := os.ReadFile(filepath.Join(tmp, "output"))
			ghPath, _ := os.ReadFile(filepath.Join(tmp, "path"))
			if string(output) != "version="+tc.wantVersion+"\n" || strings.TrimSpace(string(ghPath)) != filepath.Join(tmp, "gallivant-bin") {
				t.Errorf("GITHUB_OUTPUT %q, GITHUB_PATH %q", output, ghPath)
			}
		})
	}
}

// The Action's run step runs the command split into words, never through
// a shell, appends the version and exit status to the job summary and
// exits with gallivant's status.
func TestActionRunScript(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	script, err := filepath.Abs(filepath.Join(repoRoot, "scripts", "action-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	fake := "#!/bin/sh\nprintf '%s|' \"$@\" > \"$ARGS\"\necho \"app=${GALLIVANT_APP_ID-unset} token=$GITHUB_TOKEN default=${GALLIVANT_DEFAULT_TOKEN-unset}\" >> \"$ARGS\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "gallivant"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("bash", script)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "ARGS=" + filepath.Join(tmp, "args"), "GITHUB_STEP_SUMMARY=" + filepath.Join(tmp, "summary"),
		"GALLIVANT_COMMAND=status --format json $(touch pwned)", "GALLIVANT_INSTALLED=v9.8.7", "GALLIVANT_APP_ID=", "GITHUB_TOKEN=", "GALLIVANT_DEFAULT_TOKEN=job-token"}
	cmd.Dir = tmp
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("run: %v, want exit 3", err)
	}
	args, _ := os.ReadFile(filepath.Join(tmp, "args"))
	if diff := cmp.Diff("status|--format|json|$(touch|pwned)|app=unset token=job-token default=unset\n", string(args)); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(tmp, "pwned")); err == nil {
		t.Errorf("the command input was evaluated by a shell")
	}
	summary, _ := os.ReadFile(filepath.Join(tmp, "summary"))
	if !strings.Contains(string(summary), "gallivant v9.8.7 · `gallivant status --format json $(touch pwned)` exited 3") {
		t.Errorf("summary %q", summary)
	}
}

// Issue 29: a credential in the command's URL never reaches the job
// summary, and is masked in the log before gallivant runs.
func TestActionRunScriptKeepsCredentialsOutOfTheSummary(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	script, err := filepath.Abs(filepath.Join(repoRoot, "scripts", "action-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "gallivant"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("bash", script)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "GITHUB_STEP_SUMMARY=" + filepath.Join(tmp, "summary"),
		"GALLIVANT_COMMAND=reconcile --control https://x-access-token:ghs_S3CRET@github.com/acme/control.git", "GALLIVANT_INSTALLED=v9.8.7", "GITHUB_TOKEN=t"}
	cmd.Dir = tmp
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	summary, _ := os.ReadFile(filepath.Join(tmp, "summary"))
	if strings.Contains(string(summary), "S3CRET") || !strings.Contains(string(summary), "`gallivant reconcile --control https://github.com/acme/control.git` exited 0") {
		t.Errorf("summary %q", summary)
	}
	if !strings.HasPrefix(string(out), "::add-mask::ghs_S3CRET\n") {
		t.Errorf("the credential is not masked before gallivant runs: %q", out)
	}
}

// Issue 29 (suspected, confirmed): the cache step never runs on a pull
// request's events, whose workflows could read trusted runs' mirrors.
func TestActionCacheNotOnPullRequests(t *testing.T) {
	t.Parallel()
	a, _ := readAction(t)
	for _, s := range a.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/cache") && !strings.Contains(s.If, "!startsWith(github.event_name, 'pull_request')") {
			t.Errorf("the cache step runs on pull-request events: if %q", s.If)
		}
	}
}
