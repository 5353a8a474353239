// Package actiontest is the GitHub Actions runner, for tests: what the
// runner gives a Docker action and reads back from it.
//
//   - Payloads are real webhook payloads (GitHub's documented examples,
//     and copies adapted to optr's label and commands), embedded, so that
//     every package's tests read the same bytes.
//   - A Runner is one job: a workspace, the event payload file, the
//     GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the environment the
//     runner sets (GITHUB_*, INPUT_* with action.yml's defaults), against
//     a githubtest fake. The test starts `optr action` itself, as a
//     process or in process, with the Runner's environment.
//   - ParseOutputs reads GITHUB_OUTPUT the way the runner does.
package actiontest
