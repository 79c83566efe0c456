"""create_app(): the routes, the static files, the error handlers and headers; nothing else."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import instructor_routes, learner_routes, openapi_examples, routes
from app.config import Settings
from app.errors import install_error_handlers
from app.grading import Judge
from app.head_requests import HeadAsGet
from app.headers import SecurityHeaders
from app.learners import LearnerGate
from app.lifespan import lifespan_for

DESCRIPTION = (
    "Grades hands-on ML coding exercises in a warm, confined sandbox. Every error body is "
    '`{"detail": "..."}`; learner-code failures are normal 200 reports.'
)


def create_app(settings: Settings | None = None, judge: Judge | None = None) -> FastAPI:
    """The judge's ASGI app; settings default to the environment, tests may inject a judge."""
    settings = settings or Settings.from_env()
    app = FastAPI(
        title="judge",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan_for(settings, judge),
        redoc_url=None,
        docs_url=None,  # served by routes.pages from the vendored Swagger UI
    )
    app.state.settings = settings
    app.include_router(routes.router)
    app.include_router(learner_routes.router)
    app.include_router(instructor_routes.router)
    app.include_router(routes.pages)
    app.include_router(instructor_routes.page)
    if routes.STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=routes.STATIC_DIR), name="static")
    install_error_handlers(app)
    openapi_examples.install(app)
    app.add_middleware(instructor_routes.HiddenWhileOff, settings=settings)
    app.add_middleware(
        LearnerGate,
        in_flight=settings.learner_in_flight,
        trusted_proxies=settings.trusted_networks,
    )
    app.add_middleware(HeadAsGet)
    app.add_middleware(SecurityHeaders)  # outermost: the gate's 429 gets the headers too
    return app
