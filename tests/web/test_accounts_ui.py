"""Accounts in the web client (js/account.js, issue 27.3): signing out
leaves nothing of the person on a shared device (seat tokens, profile,
name), changing the password asks for the current one, and "Sign out
everywhere" ends the profile's other devices too."""

import re

import httpx
from playwright.async_api import Page, expect

from ..profiles.test_profiles import auth
from .test_client import Console, browser, create_room, live, open_page  # noqa: F401  (fixtures)
from .test_profiles_ui import device_profile

PERSONAL = r"^dicecup\.(seat\.|profile$|name$|push\.)"


async def personal_keys(page: Page) -> list[str]:
    return list(
        await page.evaluate(
            """(pattern) => [localStorage, sessionStorage].flatMap((store) =>
                Object.keys(store).filter((key) => new RegExp(pattern).test(key)))""",
            PERSONAL,
        )
    )


async def test_signing_out_forgets_the_person_and_everywhere_ends_every_device(live, browser) -> None:  # noqa: F811
    console = Console()
    ana = await open_page(browser, console)
    code = await create_room(ana, live.http, "Ana", "yacht", 2)
    first = await device_profile(ana)
    await ana.evaluate("() => localStorage.setItem('dicecup.lang', 'en')")
    assert any(key == f"dicecup.seat.{code}" for key in await personal_keys(ana))

    # a username and password; changing them afterwards asks for the current one
    await ana.goto(f"{live.http}/profile")
    username = f"ana_{first['id'][:6]}".replace("-", "_").lower()
    await expect(ana.locator("#credentials-current_password")).to_have_count(0)
    await ana.fill("#credentials-username", username)
    await ana.fill("#credentials-password", "correct horse")
    await ana.click("#credentials-submit")
    await expect(ana.locator('[data-pf="credentials"] [data-done]')).to_be_visible()
    await ana.goto(f"{live.http}/profile")
    await ana.fill("#credentials-password", "another horse")
    await ana.click("#credentials-submit")
    await expect(ana.locator("#credentials-current_password-error")).to_have_text("Type the password you have now.")
    await ana.fill("#credentials-current_password", "wrong horse")
    await ana.click("#credentials-submit")
    await expect(ana.locator("#credentials-current_password-error")).to_have_text("That is not the current password.")

    # the same person on a second device
    async with httpx.AsyncClient(base_url=live.http) as http:
        signed = await http.post("/api/sessions", json={"username": username, "password": "correct horse"})
        assert signed.status_code == 201
        elsewhere = signed.json()["token"]

        # sign out here: the seat tokens, the profile and the name go; the language stays
        await ana.goto(f"{live.http}/profile")
        await ana.click("#sign-out")
        await ana.click("#confirm-yes")
        await expect(ana.locator("#create-name")).to_be_visible()
        await expect(ana.locator("#create-name")).to_have_value("")
        assert await personal_keys(ana) in ([], ["dicecup.profile"])  # at most the next person's new silent profile
        assert await ana.evaluate("() => localStorage.getItem('dicecup.lang')") == "en"
        assert (await device_profile(ana))["id"] != first["id"]
        await ana.goto(f"{live.http}/r/{code}")
        await expect(ana.locator("#join-name")).to_be_visible()  # a spectator now, not Ana's seat
        assert (await http.get("/api/profiles/me", headers=auth(first["token"]))).status_code == 401
        assert (await http.get("/api/profiles/me", headers=auth(elsewhere))).status_code == 200

        # sign in again and sign out everywhere: the other device's token ends too
        await ana.goto(f"{live.http}/signin")
        await ana.fill("#signin-username", username)
        await ana.fill("#signin-password", "correct horse")
        await ana.click("#signin-submit")
        await expect(ana.locator("#rename-name")).to_have_value("Ana")
        await ana.click("#sign-out-everywhere")
        await expect(ana.locator("#confirm-text")).to_have_text(re.compile(username))
        await ana.click("#confirm-yes")
        await expect(ana.locator("#create-name")).to_be_visible()
        assert (await http.get("/api/profiles/me", headers=auth(elsewhere))).status_code == 401
    assert [e for e in console.errors if "(Unauthorized)" not in e and "(Forbidden)" not in e] == []
