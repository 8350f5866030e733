"""Make the web client's PNG icons from its SVG icon (app/web/static/icons/icon.svg)
with Chromium (the browser the tests use): 192 and 512 px, and a 512 px
maskable one (the die inside the safe zone, on the brand colour).

    .venv/bin/python tools/web_icons.py"""

from __future__ import annotations

import asyncio
from pathlib import Path

from playwright.async_api import async_playwright

ICONS = Path(__file__).resolve().parents[1] / "app" / "web" / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"


async def main() -> None:
    svg = (ICONS / "icon.svg").read_text(encoding="utf-8")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, size, pad, background in (
            ("icon-192.png", 192, 0, "transparent"),
            ("icon-512.png", 512, 0, "transparent"),
            ("icon-maskable-512.png", 512, 0.1, "#b4232a"),
        ):
            page = await browser.new_page(viewport={"width": size, "height": size})
            inner = int(size * (1 - 2 * pad))
            sized = svg.replace("<svg ", '<svg width="100%" height="100%" ', 1)
            await page.set_content(
                f'<body style="margin:0;background:{background};display:grid;place-items:center;'
                f'width:{size}px;height:{size}px">'
                f'<div style="width:{inner}px;height:{inner}px">{sized}</div></body>'
            )
            await page.screenshot(path=ICONS / name, omit_background=background == "transparent")
            await page.close()
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
