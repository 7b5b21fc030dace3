# aftersales server image: slim Python, no dev dependencies, runs as a non-root user.
# docker-compose.yml builds it once and runs it twice: the one-shot `migrate` and the `server`.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    AFTERSALES_HOST=0.0.0.0 \
    AFTERSALES_PORT=8000 \
    AFTERSALES_DATA_DIR=/var/lib/aftersales

WORKDIR /build
# Dependencies first, read from pyproject.toml alone: this layer is reused until they change, so a source
# edit rebuilds only the small layers below. The otel extra too: a deployment turns traces on with the OTEL_*
# settings alone, and without them nothing of it runs.
COPY pyproject.toml ./
RUN python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p['optional-dependencies']['otel']))" > requirements.txt \
    && pip install -r requirements.txt

# Then the package: a regular (not editable) install whose wheel carries migrations/ and seed/.
COPY README.md LICENSE ./
COPY aftersales ./aftersales
COPY migrations ./migrations
COPY seed ./seed
RUN pip install --no-deps . \
    && rm -rf /build \
    && useradd --system --uid 10001 --home-dir /var/lib/aftersales --create-home aftersales

WORKDIR /var/lib/aftersales
USER aftersales
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"
CMD ["aftersales", "serve"]
