"""``/docs``: the API's description drawn by Swagger UI, every file of it served here (``web/swagger``), none from
a CDN, under a Content-Security-Policy that lets the page load and run nothing but this server's own files."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from rangefire.web.errors import ApiError

SWAGGER = Path(__file__).resolve().parent / "swagger"
#: The version of ``swagger-ui-dist`` whose files ``web/swagger`` holds (OpenAPI 3.1, as FastAPI writes, needs 5).
SWAGGER_UI = "5.35.0"
#: Scripts, styles, the description and its requests: this server's only. Swagger UI draws its icons from
#: ``data:`` images in its own stylesheet, which load nothing from anywhere.
DOCS_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; "
               "base-uri 'none'; form-action 'self'")


class _Files(StaticFiles):
    async def check_config(self) -> None:
        if self.directory is None or not Path(self.directory).is_dir():
            raise ApiError(404, "not_found", "the API's description page is not installed on this server")
        await super().check_config()


def add_docs(app: FastAPI, folder: Path = SWAGGER) -> None:
    """``GET /docs`` (the page) and ``/docs/assets/...`` (Swagger UI's files and the script that starts it)."""

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        page = folder / "docs.html"
        if not page.is_file():
            raise ApiError(404, "not_found", "the API's description page is not installed on this server")
        return FileResponse(page, media_type="text/html", headers={"Content-Security-Policy": DOCS_POLICY})

    app.mount("/docs/assets", _Files(directory=folder, check_dir=False), name="docs-assets")
