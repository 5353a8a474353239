package detect

import (
	"path"
	"strings"
)

// The kinds of path a change may not touch unseen: what runs with the
// repository's permissions or a developer's, decides what a build
// fetches, or steers the coding agents that work here next.
const (
	KindWorkflow   = "workflow"        // GitHub Actions and the repository's GitHub settings
	KindCodeowners = "codeowners"      // who must review a change
	KindGitHook    = "git-hook"        // git hooks and their managers
	KindGitConfig  = "git-config"      // attributes, submodules, LFS: what git runs, fetches or hides
	KindCI         = "ci-config"       // other CI systems and dev containers
	KindBuild      = "build"           // build entry points and wrappers
	KindPackages   = "package-manager" // where and how packages are fetched and installed
	KindAgent      = "agent-config"    // the coding agents' project files: hooks, MCP servers, instructions
)

// kindNames say what each kind is, in a finding's reason.
var kindNames = map[string]string{
	KindWorkflow:   "a GitHub Actions workflow, action or repository setting, which runs with the repository's permissions",
	KindCodeowners: "CODEOWNERS, which decides who must review a change",
	KindGitHook:    "a git hook or its manager's config, which runs on developers' machines",
	KindGitConfig:  "git's attributes, submodules or LFS config, which decide what git runs, fetches or hides from review",
	KindCI:         "a CI system's or dev container's configuration, which runs with its credentials",
	KindBuild:      "a build entry point, which runs wherever the project is built",
	KindPackages:   "a package manager's config, which decides where packages come from and what runs on install",
	KindAgent:      "a coding agent's project file (hooks, MCP servers, instructions), which the agents that work here load and obey",
}

// entry is one curated path: a pattern and its kind. Patterns are matched
// against the whole path, ignoring case (a checkout on a case-insensitive
// file system reads .GitHub as .github): "dir/**" is dir and everything
// under it, "**/name" a name in any directory, "*" any run of characters
// within one name, and anything else the path itself.
type entry struct {
	pattern, kind string
	// example is a path the entry exists for (TestEntries).
	example string
}

// entries is the curated list of automation and execution-entry paths,
// in one place: every detector of paths reads it, first match wins. Each
// entry has a test (TestEntries: its example is found as its kind).
var entries = []entry{
	{"codeowners", KindCodeowners, "CODEOWNERS"},
	{".github/codeowners", KindCodeowners, ".github/CODEOWNERS"},
	{"docs/codeowners", KindCodeowners, "docs/CODEOWNERS"},
	{".github/**", KindWorkflow, ".github/workflows/ci.yml"},
	{".gitea/**", KindWorkflow, ".gitea/workflows/ci.yml"},
	{".forgejo/**", KindWorkflow, ".forgejo/workflows/ci.yml"},

	{".githooks/**", KindGitHook, ".githooks/pre-commit"},
	{".husky/**", KindGitHook, ".husky/pre-push"},
	{"**/.git/hooks/**", KindGitHook, "sub/.git/hooks/post-checkout"},
	{"**/.pre-commit-config.yaml", KindGitHook, ".pre-commit-config.yaml"},
	{"**/.pre-commit-hooks.yaml", KindGitHook, ".pre-commit-hooks.yaml"},
	{"lefthook.yml", KindGitHook, "lefthook.yml"},
	{".lefthook.yml", KindGitHook, ".lefthook.yml"},
	{"lefthook-local.yml", KindGitHook, "lefthook-local.yml"},
	{".lefthook/**", KindGitHook, ".lefthook/pre-commit/lint.sh"},
	{".simple-git-hooks.json", KindGitHook, ".simple-git-hooks.json"},

	{"**/.gitattributes", KindGitConfig, "web/.gitattributes"},
	{".gitmodules", KindGitConfig, ".gitmodules"},
	{".lfsconfig", KindGitConfig, ".lfsconfig"},

	{".gitlab-ci.yml", KindCI, ".gitlab-ci.yml"},
	{".gitlab/**", KindCI, ".gitlab/ci/build.yml"},
	{".circleci/**", KindCI, ".circleci/config.yml"},
	{".buildkite/**", KindCI, ".buildkite/pipeline.yml"},
	{".travis.yml", KindCI, ".travis.yml"},
	{"azure-pipelines.yml", KindCI, "azure-pipelines.yml"},
	{".azure-pipelines/**", KindCI, ".azure-pipelines/build.yml"},
	{"bitbucket-pipelines.yml", KindCI, "bitbucket-pipelines.yml"},
	{"**/jenkinsfile", KindCI, "ci/Jenkinsfile"},
	{".drone.yml", KindCI, ".drone.yml"},
	{".woodpecker.yml", KindCI, ".woodpecker.yml"},
	{".woodpecker/**", KindCI, ".woodpecker/test.yml"},
	{"cloudbuild.yaml", KindCI, "cloudbuild.yaml"},
	{"appveyor.yml", KindCI, "appveyor.yml"},
	{".appveyor.yml", KindCI, ".appveyor.yml"},
	{".devcontainer/**", KindCI, ".devcontainer/devcontainer.json"},
	{".devcontainer.json", KindCI, ".devcontainer.json"},

	{"**/makefile", KindBuild, "Makefile"},
	{"**/gnumakefile", KindBuild, "src/GNUmakefile"},
	{"**/*.mk", KindBuild, "build/rules.mk"},
	{"**/dockerfile", KindBuild, "Dockerfile"},
	{"**/dockerfile.*", KindBuild, "deploy/Dockerfile.prod"},
	{"**/*.dockerfile", KindBuild, "web.dockerfile"},
	{"**/containerfile", KindBuild, "Containerfile"},
	{"**/docker-compose*.yml", KindBuild, "docker-compose.override.yml"},
	{"**/docker-compose*.yaml", KindBuild, "docker-compose.yaml"},
	{"**/compose.yml", KindBuild, "compose.yml"},
	{"**/compose.yaml", KindBuild, "compose.yaml"},
	{"**/taskfile.yml", KindBuild, "Taskfile.yml"},
	{"**/taskfile.yaml", KindBuild, "Taskfile.yaml"},
	{"**/justfile", KindBuild, "justfile"},
	{"**/.justfile", KindBuild, ".justfile"},
	{"**/gradlew", KindBuild, "gradlew"},
	{"**/gradlew.bat", KindBuild, "gradlew.bat"},
	{"**/gradle/wrapper/**", KindBuild, "gradle/wrapper/gradle-wrapper.properties"},
	{"**/build.gradle", KindBuild, "app/build.gradle"},
	{"**/build.gradle.kts", KindBuild, "build.gradle.kts"},
	{"**/settings.gradle", KindBuild, "settings.gradle"},
	{"**/settings.gradle.kts", KindBuild, "settings.gradle.kts"},
	{"**/gradle.properties", KindBuild, "gradle.properties"},
	{"**/init.gradle", KindBuild, "init.gradle"},
	{"**/mvnw", KindBuild, "mvnw"},
	{"**/mvnw.cmd", KindBuild, "mvnw.cmd"},
	{"**/.mvn/**", KindBuild, ".mvn/wrapper/maven-wrapper.properties"},
	{"**/pom.xml", KindBuild, "pom.xml"},
	{"**/build.xml", KindBuild, "build.xml"},
	{"**/setup.py", KindBuild, "setup.py"},
	{"**/setup.cfg", KindBuild, "setup.cfg"},
	{"**/pyproject.toml", KindBuild, "pyproject.toml"},
	{"**/conftest.py", KindBuild, "tests/conftest.py"},
	{"**/tox.ini", KindBuild, "tox.ini"},
	{"**/noxfile.py", KindBuild, "noxfile.py"},
	{"**/rakefile", KindBuild, "Rakefile"},
	{"**/gemfile", KindBuild, "Gemfile"},
	{"**/*.gemspec", KindBuild, "x.gemspec"},
	{"**/build.rs", KindBuild, "build.rs"},
	{"**/.cargo/config", KindBuild, ".cargo/config"},
	{"**/.cargo/config.toml", KindBuild, ".cargo/config.toml"},
	{"**/cmakelists.txt", KindBuild, "CMakeLists.txt"},
	{"**/meson.build", KindBuild, "meson.build"},
	{"**/build.bazel", KindBuild, "BUILD.bazel"},
	{"**/workspace", KindBuild, "WORKSPACE"},
	{"**/workspace.bazel", KindBuild, "WORKSPACE.bazel"},
	{"**/module.bazel", KindBuild, "MODULE.bazel"},
	{"**/*.bzl", KindBuild, "tools/defs.bzl"},
	{"**/.bazelrc", KindBuild, ".bazelrc"},
	{"**/.envrc", KindBuild, ".envrc"},
	{"go.work", KindBuild, "go.work"},
	{"**/vagrantfile", KindBuild, "Vagrantfile"},
	{".vscode/tasks.json", KindBuild, ".vscode/tasks.json"},
	{".vscode/launch.json", KindBuild, ".vscode/launch.json"},
	{".vscode/settings.json", KindBuild, ".vscode/settings.json"},
	{".idea/runconfigurations/**", KindBuild, ".idea/runConfigurations/app.xml"},

	{"**/.npmrc", KindPackages, ".npmrc"},
	{"**/.yarnrc", KindPackages, ".yarnrc"},
	{"**/.yarnrc.yml", KindPackages, ".yarnrc.yml"},
	{".yarn/releases/**", KindPackages, ".yarn/releases/yarn-4.1.0.cjs"},
	{".yarn/plugins/**", KindPackages, ".yarn/plugins/plugin.cjs"},
	{"**/.pnpmfile.cjs", KindPackages, ".pnpmfile.cjs"},
	{"**/pip.conf", KindPackages, "pip.conf"},
	{"**/.pypirc", KindPackages, ".pypirc"},
	{"**/nuget.config", KindPackages, "NuGet.Config"},
	{"**/.bundle/config", KindPackages, ".bundle/config"},

	{".claude/**", KindAgent, ".claude/settings.json"},
	{"**/claude.md", KindAgent, "CLAUDE.md"},
	{"**/claude.local.md", KindAgent, "CLAUDE.local.md"},
	{"**/.mcp.json", KindAgent, ".mcp.json"},
	{"**/agents.md", KindAgent, "pkg/AGENTS.md"},
	{"**/agent.md", KindAgent, "AGENT.md"},
	{".codex/**", KindAgent, ".codex/config.toml"},
	{".gemini/**", KindAgent, ".gemini/settings.json"},
	{"**/gemini.md", KindAgent, "GEMINI.md"},
	{".cursor/**", KindAgent, ".cursor/mcp.json"},
	{"**/.cursorrules", KindAgent, ".cursorrules"},
	{".windsurf/**", KindAgent, ".windsurf/rules/x.md"},
	{"**/.windsurfrules", KindAgent, ".windsurfrules"},
	{"**/.clinerules", KindAgent, ".clinerules"},
	{".continue/**", KindAgent, ".continue/config.json"},
	{"**/.aider.conf.yml", KindAgent, ".aider.conf.yml"},
	{".amazonq/**", KindAgent, ".amazonq/rules/x.md"},
	{".junie/**", KindAgent, ".junie/guidelines.md"},
}

// PathKind returns the kind of the curated automation or execution-entry
// path p ("" for none) and what a path of that kind is, for messages: the
// one list an iteration also reads, to take none of these paths from a
// pull request's branch (architecture §4.16).
func PathKind(p string) (kind, what string) {
	kind = kindOf(p)
	return kind, kindNames[kind]
}

// kindOf returns the kind of the curated path p, "" for none.
func kindOf(p string) string {
	p = strings.ToLower(strings.TrimPrefix(path.Clean("/"+p), "/"))
	for _, e := range entries {
		if matchEntry(e.pattern, p) {
			return e.kind
		}
	}
	return ""
}

// matchEntry matches an entry's pattern against p (lower-case, clean).
func matchEntry(pattern, p string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/**"); ok {
		if rest, any := strings.CutPrefix(dir, "**/"); any {
			return containsDir(p, rest)
		}
		return p == dir || strings.HasPrefix(p, dir+"/")
	}
	if name, ok := strings.CutPrefix(pattern, "**/"); ok {
		if strings.Contains(name, "/") { // a path that ends so
			return p == name || strings.HasSuffix(p, "/"+name)
		}
		ok, _ := path.Match(name, path.Base(p))
		return ok
	}
	return p == pattern
}

// containsDir reports whether p is dir, or lies under it, at any depth.
func containsDir(p, dir string) bool {
	p = "/" + p + "/"
	return strings.Contains(p, "/"+dir+"/")
}
