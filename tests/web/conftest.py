"""The browser tests' server and finished runs, defined here once so that every module of
tests/web/ shares one of each per test process (a fixture imported into two test modules is
two fixtures, each built anew). ``chromium`` is module-scoped (see web_ui_fixtures)."""

from tests.web_ui_fixtures import chromium, finished, served

__all__ = ["chromium", "finished", "served"]
