"""The rules reference (/reglas/) in a real browser, on a desk and on a phone."""

from playwright.sync_api import expect

from tests.browser.conftest import screenshot


def test_a_rule_link_lands_on_its_explanation_in_spanish_and_english(page, app_url):
    page.goto(app_url + "/reglas/#R11")

    heading = page.locator("#R11")
    expect(heading).to_be_visible()
    expect(heading).to_contain_text("R11")
    assert page.evaluate("location.hash") == "#R11"
    screenshot(page, "reglas-1280")

    page.get_by_role("button", name="English").click()
    page.goto(app_url + "/reglas/#R11")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#R11")).to_be_visible()


def test_the_rules_read_on_a_phone_without_sideways_scrolling(page, app_url):
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(app_url + "/reglas/")

    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.locator('.toc a[href="#R23"]').first.click()
    expect(page.locator("#R23")).to_be_in_viewport()
    screenshot(page, "reglas-360")


def test_on_a_phone_the_keyboard_reaches_and_scrolls_the_wide_table(page, app_url):
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(app_url + "/reglas/")
    box = page.get_by_role("region", name="Tabla: Lo básico")
    assert box.evaluate("el => el.scrollWidth > el.clientWidth")  # it does scroll sideways

    for _ in range(200):
        page.keyboard.press("Tab")
        if box.evaluate("el => el === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the table's box")
    expect(box).to_be_in_viewport()
    assert box.evaluate("el => el.scrollLeft") == 0
    page.keyboard.press("ArrowRight")

    # A smooth scroll: it has begun once the box has moved at all.
    page.wait_for_function("(el) => el.scrollLeft > 0", arg=box.element_handle())
    screenshot(page, "reglas-table-focused-360")
