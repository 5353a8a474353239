#!/usr/bin/env bash
# gen-subset.sh regenerates api.github.com.subset.json: the operations of
# GitHub's published OpenAPI description (npm package @octokit/openapi,
# generated/api.github.com.json) that optr calls, plus every component they
# reference. The fake GitHub server in package githubtest validates each
# request it receives against this file.
#
# Usage: testdata/gen-subset.sh            (from internal/github/githubtest)
#        OCTOKIT_OPENAPI_VERSION=x.y.z testdata/gen-subset.sh
#
# To let the fake serve a new endpoint, add it to OPS below, run this script
# and commit the regenerated file.
set -euo pipefail

version="${OCTOKIT_OPENAPI_VERSION:-23.0.2}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/api.github.com.subset.json"

# The operations optr uses, as "METHOD /path" exactly as the description
# spells the path.
OPS='
GET /repos/{owner}/{repo}
GET /repos/{owner}/{repo}/collaborators/{username}/permission
GET /repos/{owner}/{repo}/commits
GET /repos/{owner}/{repo}/commits/{ref}
GET /repos/{owner}/{repo}/contents/{path}
PUT /repos/{owner}/{repo}/contents/{path}
GET /repos/{owner}/{repo}/git/blobs/{file_sha}
POST /repos/{owner}/{repo}/git/blobs
GET /repos/{owner}/{repo}/git/commits/{commit_sha}
POST /repos/{owner}/{repo}/git/commits
GET /repos/{owner}/{repo}/git/ref/{ref}
POST /repos/{owner}/{repo}/git/refs
PATCH /repos/{owner}/{repo}/git/refs/{ref}
GET /repos/{owner}/{repo}/git/trees/{tree_sha}
POST /repos/{owner}/{repo}/git/trees
GET /repos/{owner}/{repo}/issues/{issue_number}
GET /repos/{owner}/{repo}/issues/{issue_number}/comments
POST /repos/{owner}/{repo}/issues/{issue_number}/comments
GET /repos/{owner}/{repo}/issues/comments
GET /repos/{owner}/{repo}/issues/comments/{comment_id}
PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}
POST /repos/{owner}/{repo}/issues/{issue_number}/reactions
POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions
GET /repos/{owner}/{repo}/issues/{issue_number}/labels
POST /repos/{owner}/{repo}/issues/{issue_number}/labels
DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}
GET /repos/{owner}/{repo}/pulls
POST /repos/{owner}/{repo}/pulls
GET /repos/{owner}/{repo}/pulls/{pull_number}
PATCH /repos/{owner}/{repo}/pulls/{pull_number}
GET /repos/{owner}/{repo}/pulls/{pull_number}/comments
GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews
POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions
GET /repos/{owner}/{repo}/compare/{basehead}
POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches
'

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@octokit/openapi@$version" >/dev/null && tar xzf ./*.tgz package/generated/api.github.com.json)

OPS="$OPS" VERSION="$version" node - "$tmp/package/generated/api.github.com.json" "$out" <<'JS'
const fs = require("fs");
const [src, dst] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(src, "utf8"));

const paths = {};
for (const line of process.env.OPS.split("\n").map((l) => l.trim()).filter(Boolean)) {
  const [method, path] = line.split(/\s+/);
  const item = spec.paths[path];
  const op = item && item[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path}: not in the description`);
  paths[path] ??= {};
  for (const k of ["parameters", "servers", "summary", "description"]) {
    if (item[k] !== undefined) paths[path][k] = item[k];
  }
  paths[path][method.toLowerCase()] = op;
}

// Copy every component reachable through "$ref" from the kept paths.
const components = {};
const seen = new Set();
function walk(v) {
  if (Array.isArray(v)) return v.forEach(walk);
  if (v === null || typeof v !== "object") return;
  for (const [k, x] of Object.entries(v)) {
    if (k === "$ref" && typeof x === "string") visit(x);
    else walk(x);
  }
}
function visit(ref) {
  if (seen.has(ref)) return;
  seen.add(ref);
  const m = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
  if (!m) throw new Error(`unsupported $ref ${ref}`);
  const [, kind, name] = m;
  const value = spec.components[kind][name];
  if (value === undefined) throw new Error(`dangling $ref ${ref}`);
  (components[kind] ??= {})[name] = value;
  walk(value);
}
walk(paths);

const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
for (const k of Object.keys(components)) components[k] = sorted(components[k]);

const subset = {
  openapi: spec.openapi,
  info: { ...spec.info, "x-optr-subset-of": `@octokit/openapi@${process.env.VERSION} generated/api.github.com.json` },
  servers: spec.servers,
  paths: sorted(paths),
  components: sorted(components),
};
fs.writeFileSync(dst, JSON.stringify(subset, null, 1) + "\n");
console.error(`${dst}: ${Object.keys(paths).length} paths, ${seen.size} components`);
JS
