"""A few seconds of each benchmark scenario: every game finishes and every
member gets every event once, in order. No timings are asserted here: speed
is measured by `python -m bench.run`, not by tests."""

from bench.run import build_parser, game_scenario, idle_scenario

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
