"""Settings of the browser tests' judge that a test needs to know (a module of its own: every
test folder has a conftest, so ``from conftest import`` would find the wrong one)."""

# The instructor's view is on in the browser tests' judge (test_instructor_page.py).
INSTRUCTOR_TOKEN = "browser-instructor-token-0123456789"
