// Drives the GitHub stand-in with Octokit, making the REST calls gallivant
// makes (internal/githubapi) and the ones a person's tools make around a
// pull request. TestOctokit (../../octokit_test.go) runs it against a
// stand-in whose every response it records and validates against
// @octokit/openapi's description of GitHub. It prints one JSON line: the
// calls made, each with the status Octokit saw.
//
// Environment: OCTOKIT_BASE_URL (the stand-in's /api/v3), OCTOKIT_TOKEN
// (the author), OCTOKIT_REVIEWER_TOKEN, OCTOKIT_HEAD (a pushed branch).
import { Octokit } from "@octokit/rest";

const baseUrl = process.env.OCTOKIT_BASE_URL;
const author = new Octokit({ auth: process.env.OCTOKIT_TOKEN, baseUrl, userAgent: "gallivant-octokit-test" });
const reviewer = new Octokit({ auth: process.env.OCTOKIT_REVIEWER_TOKEN, baseUrl, userAgent: "gallivant-octokit-test" });
const owner = "acme", repo = "api", head = process.env.OCTOKIT_HEAD;
const calls = [];

// call makes one request; expected lists the statuses that are not a
// failure of the test (GitHub's documented refusals are validated too).
async function call(name, fn, expected = []) {
  try {
    const r = await fn();
    calls.push({ name, status: r.status });
    return r;
  } catch (e) {
    calls.push({ name, status: e.status ?? 0 });
    if (!expected.includes(e.status)) {
      throw new Error(`${name}: ${e.status ?? ""} ${e.message}`);
    }
    return null;
  }
}

async function main() {
  await call("meta.root", () => author.rest.meta.root());
  await call("users.getAuthenticated", () => author.rest.users.getAuthenticated());
  await call("rateLimit.get", () => author.rest.rateLimit.get());
  await call("repos.get", () => author.rest.repos.get({ owner, repo }));
  const main = await call("repos.getBranch", () => author.rest.repos.getBranch({ owner, repo, branch: "main" }));
  const base = main.data.commit.sha;
  await call("git.getRef", () => author.rest.git.getRef({ owner, repo, ref: "heads/main" }));
  await call("git.listMatchingRefs", () => author.rest.git.listMatchingRefs({ owner, repo, ref: "heads/" }));
  await call("git.createRef", () => author.rest.git.createRef({ owner, repo, ref: "refs/heads/tmp", sha: base }));
  await call("git.updateRef", () => author.rest.git.updateRef({ owner, repo, ref: "heads/tmp", sha: base, force: false }));
  await call("git.deleteRef", () => author.rest.git.deleteRef({ owner, repo, ref: "heads/tmp" }));
  await call("git.getRef (gone)", () => author.rest.git.getRef({ owner, repo, ref: "heads/tmp" }), [404]);
  await call("repos.getContent", () => author.rest.repos.getContent({ owner, repo, path: "README.md" }));

  const pr = await call("pulls.create", () => author.rest.pulls.create({ owner, repo, head, base: "main", title: "Octokit", body: "Opened by Octokit." }));
  const n = pr.data.number, sha = pr.data.head.sha;
  await call("pulls.create (again)", () => author.rest.pulls.create({ owner, repo, head, base: "main", title: "again" }), [422]);
  const all = await author.paginate(author.rest.pulls.list, { owner, repo, state: "all", per_page: 1 });
  calls.push({ name: "paginate pulls.list", status: all.length === 1 ? 200 : 0 });
  await call("pulls.list", () => author.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, sort: "updated" }));
  await call("pulls.get", () => author.rest.pulls.get({ owner, repo, pull_number: n }));
  await call("pulls.get (none)", () => author.rest.pulls.get({ owner, repo, pull_number: 999 }), [404]);
  await call("pulls.update", () => author.rest.pulls.update({ owner, repo, pull_number: n, body: "Edited by Octokit." }));
  await call("pulls.listFiles", () => author.rest.pulls.listFiles({ owner, repo, pull_number: n }));
  await call("repos.getCommit", () => author.rest.repos.getCommit({ owner, repo, ref: sha }));
  await call("repos.compareCommitsWithBasehead", () => author.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `main...${head}` }));

  await call("repos.createCommitStatus", () => author.rest.repos.createCommitStatus({ owner, repo, sha, state: "success", context: "ci/build", target_url: "https://ci.example/1" }));
  await call("repos.getCombinedStatusForRef", () => author.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha }));
  await call("repos.listCommitStatusesForRef", () => author.rest.repos.listCommitStatusesForRef({ owner, repo, ref: sha }));
  const run = await call("checks.create", () => author.rest.checks.create({ owner, repo, name: "lint", head_sha: sha, status: "in_progress" }));
  await call("checks.update", () => author.rest.checks.update({ owner, repo, check_run_id: run.data.id, status: "completed", conclusion: "success" }));
  await call("checks.listForRef", () => author.rest.checks.listForRef({ owner, repo, ref: sha }));
  await call("actions.listWorkflowRunsForRepo", () => author.rest.actions.listWorkflowRunsForRepo({ owner, repo, head_sha: sha }));

  await call("issues.addLabels", () => author.rest.issues.addLabels({ owner, repo, issue_number: n, labels: ["ready-for-human"] }));
  await call("issues.listLabelsOnIssue", () => author.rest.issues.listLabelsOnIssue({ owner, repo, issue_number: n }));
  await call("issues.removeLabel", () => author.rest.issues.removeLabel({ owner, repo, issue_number: n, name: "ready-for-human" }));
  await call("issues.removeLabel (absent)", () => author.rest.issues.removeLabel({ owner, repo, issue_number: n, name: "ready-for-human" }), [404]);
  const cm = await call("issues.createComment", () => author.rest.issues.createComment({ owner, repo, issue_number: n, body: "Ready for a look." }));
  await call("issues.updateComment", () => author.rest.issues.updateComment({ owner, repo, comment_id: cm.data.id, body: "Ready for a look, please." }));
  await call("issues.listComments", () => author.rest.issues.listComments({ owner, repo, issue_number: n, since: "2000-01-01T00:00:00Z" }));
  await call("reactions.createForIssueComment", () => reviewer.rest.reactions.createForIssueComment({ owner, repo, comment_id: cm.data.id, content: "+1" }));
  await call("reactions.listForIssueComment", () => author.rest.reactions.listForIssueComment({ owner, repo, comment_id: cm.data.id }));

  await call("repos.getCollaboratorPermissionLevel", () => author.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username: "reviewer" }));
  await call("pulls.createReview (own)", () => author.rest.pulls.createReview({ owner, repo, pull_number: n, event: "APPROVE" }), [422]);
  await call("pulls.createReview", () => reviewer.rest.pulls.createReview({ owner, repo, pull_number: n, event: "APPROVE", body: "Looks good." }));
  await call("pulls.createReviewComment", () => reviewer.rest.pulls.createReviewComment({ owner, repo, pull_number: n, commit_id: sha, path: "octokit.txt", line: 1, body: "Nice line." }));
  await call("pulls.listReviews", () => author.rest.pulls.listReviews({ owner, repo, pull_number: n }));
  await call("pulls.listReviewComments", () => author.rest.pulls.listReviewComments({ owner, repo, pull_number: n }));
  await call("pulls.updateBranch", () => author.rest.pulls.updateBranch({ owner, repo, pull_number: n }), [422]);
  // GraphQL through Octokit: on an Enterprise base URL it posts to
  // /api/graphql, which the stand-in serves from its schema subset.
  const q = await author.graphql(`query($n: Int!) { repository(owner: "acme", name: "api") { pullRequest(number: $n) { reviews(first: 5, states: [APPROVED]) { nodes { author { login } } } } } }`, { n });
  const approvers = q.repository.pullRequest.reviews.nodes.map((r) => r.author.login);
  calls.push({ name: "graphql pullRequest", status: approvers.join() === "reviewer" ? 200 : 0 });
  await call("pulls.merge", () => author.rest.pulls.merge({ owner, repo, pull_number: n, merge_method: "merge" }));
  await call("pulls.merge (again)", () => author.rest.pulls.merge({ owner, repo, pull_number: n }), [405]);
}

main().then(
  () => console.log(JSON.stringify({ calls })),
  (e) => { console.log(JSON.stringify({ calls, error: String(e.message) })); process.exitCode = 1; },
);
