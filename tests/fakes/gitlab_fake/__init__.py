"""The modules of tests/fakes/fake_gitlab.py (named gitlab_fake so that python-gitlab's `gitlab`
stays importable beside it), a FAKE GitLab for awaywork's tests (not GitLab's
code): store (the state), shapes (GitLab's REST v4 bodies), server (HTTP, git, /_fake/)."""
