# Dicecup's image: the locked runtime dependencies, the package (its
# migrations inside), and every strategy table, computed here once so that
# replicas never compute them; runs as an unprivileged user.
#   docker build -t dicecup .
#   docker run -p 8000:8000 -v dicecup-data:/data dicecup      (SQLite in /data)

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
# Dependencies first, from the lock (hashes checked), so that a code change
# does not reinstall them.
COPY requirements/prod.txt requirements/prod.txt
RUN python -m venv /opt/dicecup \
    && /opt/dicecup/bin/pip install --require-hashes -r requirements/prod.txt
COPY pyproject.toml setup.py MANIFEST.in README.md alembic.ini ./
COPY migrations ./migrations
COPY app ./app
COPY clients/js/src ./clients/js/src
# A regular (non-editable) install: the migrations travel inside the package.
# pip and setuptools are not needed at run time. Bytecode compiled now: the
# server's user cannot write it at run time.
RUN /opt/dicecup/bin/pip install --no-deps . \
    && /opt/dicecup/bin/pip uninstall -q -y pip setuptools \
    && /opt/dicecup/bin/python -m compileall -q /opt/dicecup/lib
# Every strategy table, then a check that the server loads each of them
# (the build fails otherwise).
# Read-only for the server's user: set here, because a chmod in the final
# stage would copy every table into a layer of its own.
RUN /opt/dicecup/bin/python -m app.strategy solve all --quiet --dir /opt/dicecup/strategy \
    && rm -f /opt/dicecup/strategy/*.lock \
    && chmod -R a=rX /opt/dicecup/strategy \
    && /opt/dicecup/bin/python -c "import sys; from pathlib import Path; from app.strategy import StrategyStore; \
missing = StrategyStore(Path('/opt/dicecup/strategy'), solve=False).load_available(); \
sys.exit(f'strategy tables missing: {missing}' if missing else 0)"

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/dicecup/bin:$PATH \
    DICECUP_HOST=0.0.0.0 \
    DICECUP_PORT=8000 \
    DICECUP_DATABASE_URL=sqlite+aiosqlite:////data/dicecup.db \
    DICECUP_STRATEGY_DIR=/opt/dicecup/strategy \
    DICECUP_STRATEGY_SOLVE=false
COPY --from=build /opt/dicecup /opt/dicecup
# /data (SQLite, backups) is the server's user's own.
RUN useradd --system --no-create-home --home-dir /data --shell /usr/sbin/nologin dicecup \
    && mkdir /data && chown dicecup /data
USER dicecup
WORKDIR /data
EXPOSE 8000
# Liveness; compose checks readiness (/api/ready) where it gates traffic.
# The probe asks the port the server listens on (DICECUP_PORT).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-m", "app.ops.probe", "health"]
CMD ["python", "-m", "app", "serve"]
