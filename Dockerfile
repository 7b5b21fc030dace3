# aftersales server image: slim Python, no dev dependencies, runs as a non-root user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    AFTERSALES_HOST=0.0.0.0 \
    AFTERSALES_PORT=8000 \
    AFTERSALES_DATA_DIR=/var/lib/aftersales

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY aftersales ./aftersales
COPY migrations ./migrations
COPY seed ./seed
# Editable install keeps migrations/ and seed/ where the package finds them (next to it, in /app).
RUN pip install -e . \
    && useradd --system --uid 10001 --home-dir /var/lib/aftersales --create-home aftersales

USER aftersales
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"
CMD ["aftersales", "serve"]
