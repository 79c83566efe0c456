"""OpenAPI, /docs, the page routes and the headers every response carries."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from asgi_client import InProcessClient

from app.headers import CONTENT_SECURITY_POLICY
from app.routes import STATIC_DIR

CSP_DIRECTIVES = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
]
API_ROUTES = {
    ("get", "/api/exercises"),
    ("get", "/api/sections"),
    ("get", "/api/exercises/{exercise_id}"),
    ("post", "/api/exercises/{exercise_id}/submissions"),
    ("post", "/api/exercises/{exercise_id}/runs"),
    ("get", "/api/exercises/{exercise_id}/hints/{n}"),
    ("get", "/api/exercises/{exercise_id}/theory"),
    ("get", "/api/health"),
    ("get", "/api/me/progress"),
    ("get", "/api/me/submissions"),
    ("get", "/api/me/submissions/{submission_id}"),
    ("get", "/api/instructor/exercises"),
    ("get", "/api/instructor/exercises/{exercise_id}"),
    ("get", "/api/instructor/submissions.csv"),
}


INSTRUCTOR_ROUTES = {(method, path) for method, path in API_ROUTES if "/instructor/" in path}


def test_openapi_documents_every_route(
    make_client: Callable[..., InProcessClient], fake_judge: object
) -> None:
    client = make_client(fake_judge, instructor_token="a-token-of-16-chars-or-more")
    spec = client.get("/openapi.json").json()
    operations = {
        (method, path): op for path, ops in spec["paths"].items() for method, op in ops.items()
    }
    assert set(operations) == API_ROUTES  # pages and static files stay out of the API docs
    for key, op in operations.items():
        assert op.get("summary"), key
        assert op.get("description"), key
        (answer,) = op["responses"]["200"]["content"].values()  # JSON, or the export's CSV
        assert answer.get("example"), key


def test_the_instructor_paths_are_left_out_while_the_view_is_off(client: InProcessClient) -> None:
    # Off, they answer 404 to every method, as paths that do not exist.
    spec = client.get("/openapi.json").json()
    listed = {(method, path) for path, ops in spec["paths"].items() for method in ops}
    assert listed == API_ROUTES - INSTRUCTOR_ROUTES
    assert client.get("/api/instructor/exercises").status_code == 404


def test_openapi_has_the_report_and_error_schemas(client: InProcessClient) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {"Report", "CaseResult", "ExercisePublic", "ExerciseSummary", "Hint", "Health"} <= set(
        schemas
    )
    assert set(schemas["Report"]["properties"]) == {
        "status",
        "mode",
        "seed",
        "replayed_seed",
        "verdict",
        "message",
        "passed",
        "total",
        "duration_ms",
        "tests",
    }
    assert "HTTPValidationError" not in schemas  # our 422 body is {"detail": str}
    submit = spec["paths"]["/api/exercises/{exercise_id}/submissions"]["post"]
    assert submit["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Report"
    }
    assert {"404", "413", "422", "503"} <= set(submit["responses"])
    assert "Retry-After" in submit["responses"]["503"]["headers"]
    body = submit["requestBody"]["content"]["application/json"]
    assert body["schema"]["required"] == ["code"]
    assert "code" in body["example"]


def test_docs_is_html(client: InProcessClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "/openapi.json" in response.text


@pytest.mark.parametrize(
    "path", ["/api/exercises", "/api/health", "/api/nope", "/nope", "/openapi.json", "/"]
)
def test_security_headers_on_every_response(client: InProcessClient, path: str) -> None:
    headers = client.get(path).headers
    csp = headers["content-security-policy"]
    assert csp == CONTENT_SECURITY_POLICY
    for directive in CSP_DIRECTIVES:
        assert directive in [part.strip() for part in csp.split(";")], directive
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


def test_api_is_never_cached(client: InProcessClient) -> None:
    assert client.get("/api/exercises").headers["cache-control"] == "no-store"
    assert client.get("/api/nope").headers["cache-control"] == "no-store"


needs_pages = pytest.mark.skipif(
    not (STATIC_DIR / "index.html").is_file() or not (STATIC_DIR / "exercise.html").is_file(),
    reason="app/static/index.html and exercise.html are not written yet",
)


@needs_pages
def test_home_page_is_served(client: InProcessClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.content == (STATIC_DIR / "index.html").read_bytes()


@needs_pages
@pytest.mark.parametrize(
    ("exercise_id", "status"), [("add-numbers", 200), ("x", 404), ("no-such-exercise", 404)]
)
def test_exercise_page_is_served_for_any_id(
    client: InProcessClient, exercise_id: str, status: int
) -> None:
    # An unknown id gets the same page (its script says "not found") with a 404 status.
    response = client.get(f"/exercises/{exercise_id}")
    assert response.status_code == status
    assert response.headers["content-type"].startswith("text/html")
    assert response.content == (STATIC_DIR / "exercise.html").read_bytes()


def test_vendor_files_are_immutable_and_others_revalidate(client: InProcessClient) -> None:
    vendor = sorted(p for p in (STATIC_DIR / "vendor").rglob("*") if p.is_file())
    if not vendor:
        pytest.skip("no vendored files under app/static/vendor yet")
    path = "/static/" + vendor[0].relative_to(STATIC_DIR).as_posix()
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.get("/").headers["cache-control"] == "no-cache"


def test_missing_static_file_is_404_json(client: InProcessClient) -> None:
    response = client.get("/static/no-such-file.js")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_pages_are_not_under_the_api_cache_policy(
    make_client: Callable[..., InProcessClient],
) -> None:
    client = make_client()
    assert client.get("/exercises/x").headers["cache-control"] == "no-cache"


def test_docs_loads_nothing_from_outside(client: InProcessClient) -> None:
    page = client.get("/docs").text
    assert "http://" not in page and "https://" not in page
    policy = client.get("/docs").headers["content-security-policy"]
    assert "http" not in policy
    assets = re.findall(r"/static/vendor/swagger-ui-[\w.]+/[\w.-]+", page)
    assert {url.rsplit("/", 1)[1] for url in assets} >= {"swagger-ui-bundle.js", "swagger-ui.css"}
    for url in assets:
        assert client.get(url).status_code == 200, url
