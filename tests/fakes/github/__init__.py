"""A FAKE of GitHub's REST API and git-over-HTTP(S), for awaywork's tests only (see
tests/fakes/README.md, section fake_github.py). Not GitHub's code: its bodies are shaped after
GitHub's recorded responses in @octokit/fixtures, checked by tests/fakes/github_keys_test.py."""
