"""docker-compose.yml stays valid without Docker: it parses, references only
files that exist, keeps the replicas unpublished behind the proxy, and trusts
X-Forwarded-For from the proxies' fixed addresses only."""

import ipaddress
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's ${VAR}, ${VAR:-default} and ${VAR:?error}, from ``env``."""

    def one(match: re.Match) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3) or ""
        if op == ":?":
            assert env.get(name), f"{name} is required ({arg}) and .env.example does not set it"
            return env[name]
        return env.get(name) or (arg if op == ":-" else "")

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}", one, value.replace("$$", "\0")).replace(
        "\0", "$"
    )


def example_env() -> dict[str, str]:
    env = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    return env


def test_compose_references_only_files_that_exist() -> None:
    services = compose()["services"]
    referenced: list[str] = []
    for name, service in services.items():
        build = service.get("build")
        if build is not None:
            context = build if isinstance(build, str) else build.get("context", ".")
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            referenced += [context, f"{context}/{dockerfile}"]
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0] if isinstance(volume, str) else volume.get("source", "")
            if source.startswith((".", "/")):
                referenced.append(source)
        for env_file in service.get("env_file", []):
            path = env_file if isinstance(env_file, str) else env_file["path"]
            required = True if isinstance(env_file, str) else env_file.get("required", True)
            assert not required, f"{name}: a required env_file ({path}) fails in a clean clone"
            referenced.append(".env.example")  # what .env is made from
    assert referenced
    for path in referenced:
        assert (ROOT / path).exists(), f"docker-compose.yml references {path}, which does not exist"
    # and what the image is built from
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY") and "--from=" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"
                assert not _ignored(source), f"the Dockerfile copies {source}, which .dockerignore leaves out"


def _ignored(path: str) -> bool:
    patterns = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines() if p.strip()]
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in patterns)


def test_every_variable_compose_requires_is_in_env_example() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    rendered = yaml.safe_load(interpolate(text, example_env()))
    assert rendered["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == example_env()["POSTGRES_PASSWORD"]
    assert "POSTGRES_PASSWORD: dicecup" not in text  # no password in the file itself
    assert not (ROOT / ".env").exists() or ".env" in (ROOT / ".gitignore").read_text()


def test_the_replicas_sit_behind_the_proxy_which_alone_is_trusted() -> None:
    data = compose()
    services = data["services"]
    assert "ports" not in services["app"], "the replicas are reached through the proxy only"
    assert services["app"]["deploy"]["replicas"] >= 2
    # podman-compose (deploy/ci/stack.sh) starts one replica unless the mode is said
    assert services["app"]["deploy"].get("mode") == "replicated"
    pool = data["networks"]["dicecup"]["ipam"]["config"][0]
    subnet, dynamic = ipaddress.ip_network(pool["subnet"]), ipaddress.ip_network(pool["ip_range"])
    fixed = {
        name: ipaddress.ip_address(services[name]["networks"]["dicecup"]["ipv4_address"]) for name in ("proxy", "caddy")
    }
    for address in fixed.values():
        assert address in subnet and address not in dynamic, "a replica could be given a trusted proxy's address"
    trusted = {ipaddress.ip_address(a) for a in services["app"]["environment"]["DICECUP_TRUSTED_PROXIES"].split(",")}
    assert trusted == set(fixed.values())
    assert services["proxy"]["environment"]["NGINX_TLS_PROXY"] == str(fixed["caddy"])
    # readiness gates the proxy; the port is the app's setting, never written here
    assert services["app"]["healthcheck"]["test"][-1] == "ready"
    assert services["proxy"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert "8000" not in str(services["app"]["healthcheck"])
    # named volumes only
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            assert source.startswith("./") or source in data["volumes"], f"{volume}: an anonymous volume"


def test_the_final_stage_keeps_one_copy_of_what_it_copies() -> None:
    """A RUN in the final stage that changes a file copied from the build
    stage (a chmod, a chown) stores a second copy of it in a layer of its own:
    the strategy tables' modes are set in the build stage."""
    final = (ROOT / "Dockerfile").read_text().rsplit("\nFROM ", 1)[1]
    runs = re.findall(r"^RUN (?:.*\\\n)*.*$", final, re.MULTILINE)
    assert runs
    for run in runs:
        assert "/opt/dicecup" not in run, f"the final stage changes copied files: {run}"


def test_the_proxy_asks_the_dns_server_of_its_own_network() -> None:
    """Docker's DNS is 127.0.0.11, podman's the network's gateway: the proxy
    reads the address from its /etc/resolv.conf at start (a fixed
    127.0.0.11 never resolved the replicas under podman), then hands over to
    the nginx image's entrypoint, which renders the template."""
    proxy = compose()["services"]["proxy"]
    assert "NGINX_RESOLVER" not in proxy["environment"]
    script = " ".join(proxy["entrypoint"])
    assert "/etc/resolv.conf" in script and "export NGINX_RESOLVER=" in script
    assert 'exec /docker-entrypoint.sh "$$@"' in script
    assert proxy["command"][0] == "nginx"
