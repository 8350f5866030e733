from hypothesis import HealthCheck, settings

# Seeded: CI runs the same examples every time, and a failure reproduces.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci")
