"""A few seconds of each benchmark scenario: every game finishes and every
member gets every event once, in order. No timings are asserted here: speed
is measured by `python -m bench.run`, not by tests."""

from bench.run import build_parser, game_scenario, hostile_scenario, idle_scenario

from ..services import postgres_url, redis_url

SMALL = ["--rooms", "3", "--seats", "2", "--spectators", "1"]


def check(result: dict) -> None:
    for side in ("baseline", "dicecup"):
        report = result[side]
        assert report["anomalies"] == [], report["anomalies"]
        assert report["errors"] == {}, report["errors"]
        assert report["actions"] > 0
    ours = result["dicecup"]
    assert ours["games_finished"] == ours["games"] == 3
    assert result["ratio_to_baseline"]["ack_p50"] is not None
    assert ours["cpu_ms_per_action"]["server"] > 0 and ours["cpu_ms_per_action"]["load_generator"] > 0


def test_sqlite_over_websocket() -> None:
    check(game_scenario("sqlite", build_parser().parse_args(["sqlite", *SMALL])))


def test_sqlite_over_rest_open_loop() -> None:
    args = build_parser().parse_args(["sqlite", *SMALL, "--mode", "rest", "--rate", "200", "--step", "30"])
    check(game_scenario("sqlite", args))


def test_postgres() -> None:
    args = build_parser().parse_args(["postgres", *SMALL, "--postgres", postgres_url()])
    result = game_scenario("postgres", args)
    check(result)
    assert result["postgres_commits_per_s"]["1 connection"] > 0


def test_two_instances_over_redis() -> None:
    args = build_parser().parse_args(["redis", *SMALL, "--postgres", postgres_url(), "--redis", redis_url()])
    result = game_scenario("redis", args)
    check(result)
    # members on both instances: the fan-out is measured to each side
    ours = result["dicecup"]
    assert ours["fanout_same_instance_ms"]["count"] > 0 and ours["fanout_cross_instance_ms"]["count"] > 0


def test_idle_connections_and_reconnect_storm() -> None:
    result = idle_scenario(build_parser().parse_args(["storm", "--connections", "60"]), storm=True)
    assert result["opened"] == result["reconnected"] == 60
    assert result["failed"] == 0
    assert set(result["storm_cpu_s"]) == {"server", "load_generator"}


def test_hostile() -> None:
    """Saturation, then players at half of it, alone and among hostile clients,
    with the server's rate limits on (bench/hostile.py)."""
    hostile = ["--watchers", "6", "--oversize", "2", "--probes", "4", "--hostile-addresses", "1", "--warmup", "1"]
    args = build_parser().parse_args(["hostile", *SMALL, "--step", "2", *hostile])
    result = hostile_scenario(args)
    assert result["saturation"]["actions"] > 0 and result["rate_per_s"] > 0
    for phase in ("quiet", "hostile"):
        report = result[phase]
        assert report["anomalies"] == [], report["anomalies"]
        assert report["actions"] > 0 and report["ack_ms"]["count"] > 0
        assert report["rss_kib"]["peak"] >= report["rss_kib"]["before"] > 0
    clients = result["hostile_clients"]
    assert clients["watching"] == clients["watchers"] == 6 and clients["watcher_gaps"] == 0
    assert clients["watcher_fanout_ms"]["count"] > 0
    outcomes = clients["outcomes"]
    assert outcomes["oversize_frames_sent"] > 0 and outcomes["probe_ws"] and outcomes["probe_rest"]
    # whatever else the server does, it never takes an oversize frame or finds a guessed room
    # (past 10 such frames a minute its address is dropped as it connects)
    refused = {"close 1009", "close 4429", "http 403", "http 429", "dropped"}
    assert set(outcomes["oversize"]) <= refused, outcomes["oversize"]
    assert "http 200" not in outcomes["probe_rest"]
