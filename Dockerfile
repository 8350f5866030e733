FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DICECUP_HOST=0.0.0.0 \
    DICECUP_PORT=8000 \
    DICECUP_DATABASE_URL=sqlite+aiosqlite:////data/dicecup.db

WORKDIR /srv/dicecup
# Dependencies first, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir app && touch app/__init__.py && pip install . && pip uninstall -y dicecup && rm -r app
COPY alembic.ini ./
COPY migrations ./migrations
COPY app ./app
RUN pip install --no-deps -e . \
    && useradd --system --home-dir /srv/dicecup dicecup \
    && mkdir /data && chown dicecup /data

USER dicecup
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=2)"
CMD ["python", "-m", "app", "serve"]
