"""Tests for rules.texts: every label, card, check and audit line exists in both languages."""

import re

import pytest

import rules
from rules import texts
from rules.texts import (
    CARDS,
    CHECKS,
    LANGS,
    SPECIALS,
    card,
    check_text,
    special_label,
)
from rules.trail import RULES, chain, describe

TYPES = ("heridas", "fatiga", "shock", "emocion", "afeccion")
GRADES = ("leve", "grave", "persistente")
EMOTION_VARIANTS = (
    ("leve", "miedo"),
    ("leve", "euforia"),
    ("grave", "terror"),
    ("grave", "ira"),
    ("persistente", "abatimiento"),
)
CHECK_NAMES = (
    "heridas_leve_descanso",
    "heridas_grave_infeccion",
    "heridas_persistente_recuperacion",
    "shock_grave_fin_turno",
    "sin_descanso",
    "esfuerzo_prolongado",
)
SPECIAL_NAMES = (
    "incapacitado",
    "desprevenido",
    "derribado",
    "inconsciente",
    "dormido",
    "infeccion",
    "desangramiento",
    "lesion",
    "ceguera",
    "sordera",
    "fobia",
    "paranoia",
    "compulsion",
    "amnesia",
    "bloqueo_empatico",
    "catatonia",
)


def test_langs_are_spanish_then_english():
    assert LANGS == ("es", "en")


@pytest.mark.parametrize("type_", TYPES)
@pytest.mark.parametrize("grade", GRADES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_type_and_grade_has_a_card_in_both_languages(type_, grade, lang):
    text = CARDS[(type_, grade)][lang]
    assert text["effect"].strip() and text["ends"].strip()
    shown = card(type_, grade, lang=lang)
    assert shown["title"] and shown["effect"] == text["effect"] and shown["ends"] == text["ends"]


@pytest.mark.parametrize(("grade", "variant"), EMOTION_VARIANTS)
@pytest.mark.parametrize("lang", LANGS)
def test_every_emotion_variant_has_a_card_in_both_languages(grade, variant, lang):
    text = CARDS[("emocion", grade, variant)][lang]
    assert text["effect"].strip() and text["ends"].strip()
    assert card("emocion", grade, variant, lang)["effect"] == text["effect"]


def test_card_titles_read_naturally_in_each_language():
    assert card("heridas", "grave")["title"] == "Heridas Grave"
    assert card("emocion", "leve", "miedo")["title"] == "Emoción Leve: miedo"
    assert card("heridas", "grave", lang="en")["title"] == "Serious Wounds"
    assert card("emocion", "grave", "ira", "en")["title"] == "Serious Emotion: Rage"


def test_cards_carry_the_spec_numbers():
    assert "−1" in card("heridas", "leve")["effect"]
    assert "−2" in card("heridas", "persistente")["effect"]
    assert "−3" in card("fatiga", "grave", lang="en")["effect"]
    assert "Inconsciente" in card("shock", "persistente")["effect"]
    assert "Fatiga" in card("heridas", "leve")["ends"]
    for grade, obstacle in (("leve", "−1"), ("grave", "−3"), ("persistente", "−2")):
        assert obstacle in card("afeccion", grade)["effect"]
        assert "Medicine" in card("afeccion", grade, lang="en")["effect"]
    # A real minus sign, as the modifier tables print it: never a hyphen.
    for key in CARDS:
        for lang in LANGS:
            text = CARDS[key][lang]["effect"] + CARDS[key][lang]["ends"]
            assert not re.search(r"(^|[ (])-\d", text), (key, lang, text)


def test_card_falls_back_to_spanish_for_an_unknown_language():
    assert card("fatiga", "leve", lang="fr") == card("fatiga", "leve", lang="es")


def test_card_raises_key_error_for_unknown_type_or_grade():
    with pytest.raises(KeyError):
        card("hambre", "leve")
    with pytest.raises(KeyError):
        card("heridas", "mortal")


@pytest.mark.parametrize("name", CHECK_NAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_check_has_label_fail_and_success_in_both_languages(name, lang):
    text = check_text(name, lang)
    assert set(text) == {"label", "fail", "success"}
    assert all(value.strip() for value in text.values())
    assert text == CHECKS[name][lang]


def test_check_text_falls_back_to_spanish():
    assert check_text("sin_descanso", "de") == CHECKS["sin_descanso"]["es"]


@pytest.mark.parametrize("name", SPECIAL_NAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_special_has_label_and_effect_in_both_languages(name, lang):
    entry = SPECIALS[name][lang]
    assert entry["label"].strip() and entry["effect"].strip()
    assert special_label(name, lang) == entry["label"]


def test_special_labels_keep_spanish_accents():
    assert special_label("lesion") == "Lesión"
    assert special_label("bloqueo_empatico") == "Bloqueo empático"
    assert special_label("infeccion", "en") == "Infection"


def test_special_label_returns_unknown_names_unchanged():
    assert special_label("veneno de fugu") == "veneno de fugu"
    assert special_label("veneno de fugu", "en") == "veneno de fugu"


@pytest.mark.parametrize("rule", [f"R{n}" for n in range(1, 28)] + ["base", "DJ"])
def test_every_rule_has_a_summary_in_both_languages(rule):
    assert all(RULES[rule][lang].strip() for lang in LANGS)


def test_base_and_gm_rules_are_named():
    assert RULES["base"] == {"es": "Efecto directo", "en": "Direct effect"}
    assert RULES["DJ"] == {"es": "Decisión del DJ", "en": "GM decision"}


# (effect, text expected in Spanish, text expected in English)
DESCRIBED = [
    ({"change": "suffer", "type": "heridas", "grade": "leve"}, "Heridas Leve", "Wounds"),
    (
        {"change": "suffer", "type": "fatiga", "grade": "leve"},
        "Sufre Fatiga Leve",
        "Suffers Light Fatigue",
    ),
    (
        {"change": "suffer", "type": "emocion", "grade": "leve", "variant": "miedo"},
        "Emoción Leve: miedo",
        "Light Emotion: Fear",
    ),
    (
        {"change": "mark", "type": "shock", "grade": "persistente"},
        "Shock Persistente",
        "Persistent Shock",
    ),
    ({"change": "mark", "type": "emocion", "grade": "grave", "variant": "ira"}, "ira", "Rage"),
    ({"change": "unmark", "type": "heridas", "grade": "grave"}, "Heridas Grave", "Serious Wounds"),
    (
        {"change": "variant", "type": "emocion", "grade": "leve", "variant": "euforia"},
        "euforia",
        "Elation",
    ),
    ({"change": "special_on", "name": "incapacitado"}, "Incapacitado", "Incapacitated"),
    ({"change": "special_off", "name": "derribado"}, "Derribado", "Knocked down"),
    ({"change": "special_on", "name": "veneno de fugu"}, "Veneno de fugu", "Veneno de fugu"),
    ({"change": "affliction", "source": "infeccion"}, "Infección", "Infection"),
    (
        {"change": "check_raised", "check": "heridas_grave_infeccion"},
        "evitar infección",
        "resist infection",
    ),
    ({"change": "check_passed", "check": "shock_grave_fin_turno"}, "TS VOL", "Save WIL"),
    ({"change": "check_failed", "check": "sin_descanso"}, "Descanso", "Long rest"),
    (
        {"change": "check_dismissed", "check": "heridas_leve_descanso"},
        "Heridas leve",
        "Light Wounds",
    ),
    ({"change": "check_dropped", "check": "heridas_grave_infeccion"}, "infección", "infection"),
    ({"change": "asleep", "hours": 8}, "8 h", "8 h"),
    ({"change": "asleep"}, "duerme", "asleep"),
    ({"change": "awake", "forced": True}, "fuerza", "force"),
    ({"change": "awake", "forced": False}, "Despierta", "Wakes"),
    ({"change": "descanso"}, "Descanso", "Long rest"),
    ({"change": "descanso_spent"}, "Descanso", "Long rest"),
    ({"change": "nothing"}, "Sin más", "No further"),
    (
        {"change": "duration", "type": "shock", "grade": "persistente", "minutes": 4},
        "Inconsciente durante 4 min",
        "Unconscious for 4 min",
    ),
    (
        {"change": "duration", "type": "shock", "grade": "persistente", "minutes": 120},
        "Inconsciente durante 2 h",
        "Unconscious for 2 h",
    ),
]


@pytest.mark.parametrize(("effect", "es_text", "en_text"), DESCRIBED)
def test_describe_renders_every_change_with_translated_labels(effect, es_text, en_text):
    record = {"rule": "base", **effect}
    assert es_text in describe(record, "es")
    assert en_text in describe(record, "en")


def test_describe_example_from_the_brief():
    effect = {"rule": "R8", "change": "suffer", "type": "heridas", "grade": "leve"}
    assert "Wounds" in describe(effect, "en")
    assert describe(effect) == "Sufre Heridas Leve"


@pytest.mark.parametrize(
    "effect",
    [
        {"rule": "R1", "change": "teleport"},
        {"rule": "R1"},
        {},
        {"change": "suffer"},
        {"change": "duration", "minutes": "soon"},
        {"change": "check_raised", "check": "no_such_check"},
        {"change": "special_on"},
    ],
)
@pytest.mark.parametrize("lang", [*LANGS, "xx"])
def test_describe_never_raises_on_odd_records(effect, lang):
    assert describe(effect, lang).strip()


def test_describe_falls_back_to_spanish_for_an_unknown_language():
    effect = {"rule": "base", "change": "suffer", "type": "fatiga", "grade": "grave"}
    assert describe(effect, "fr") == describe(effect, "es")


def test_chain_marks_rule_steps_between_descriptions():
    effects = [
        {"rule": "base", "change": "suffer", "type": "shock", "grade": "leve"},
        {"rule": "R11", "change": "suffer", "type": "fatiga", "grade": "leve"},
        {"rule": "R8", "change": "suffer", "type": "heridas", "grade": "leve"},
        {"rule": "R5", "change": "special_on", "name": "incapacitado"},
    ]
    assert chain(effects) == (
        "Sufre Shock Leve → R11 → Sufre Fatiga Leve → R8 → Sufre Heridas Leve"
        " → R5 → Gana Incapacitado"
    )
    assert chain(effects, "en").startswith("Suffers Light Shock → R11 → Suffers Light Fatigue")


def test_chain_names_a_rule_once_for_the_steps_it_takes_in_a_row():
    effects = [
        {"rule": "R26", "change": "unmark", "type": "heridas", "grade": "leve"},
        {"rule": "R26", "change": "suffer", "type": "fatiga", "grade": "leve"},
        {"rule": "base", "change": "mark", "type": "fatiga", "grade": "leve"},
        {"rule": "R26", "change": "special_on", "name": "derribado"},
    ]
    assert chain(effects) == (
        "→ R26 → Desmarca Heridas Leve → Sufre Fatiga Leve → Marca Fatiga Leve"
        " → R26 → Gana Derribado"
    )


def test_chain_says_a_step_repeated_in_a_row_once_with_its_count():
    dropped = {"rule": "R6", "change": "check_dropped", "check": "heridas_grave_infeccion"}
    effects = [
        {"rule": "R25", "change": "unmark", "type": "heridas", "grade": "grave"},
        dropped,
        dropped,
        dropped,
        {"rule": "R6", "change": "check_dropped", "check": "sin_descanso"},
    ]
    assert chain(effects) == (
        "→ R25 → Desmarca Heridas Grave → R6 → Ya no procede: TS FUE: evitar infección ×3"
        " → Ya no procede: TS VOL: día sin Descanso"
    )
    assert chain([dropped, {"rule": "base", "change": "nothing"}, dropped]).count("×") == 0


def test_chain_does_not_show_base_or_gm_as_steps():
    effects = [
        {"rule": "DJ", "change": "special_on", "name": "derribado"},
        {"rule": "base", "change": "mark", "type": "fatiga", "grade": "leve"},
    ]
    text = chain(effects)
    assert "DJ" not in text and "base" not in text
    assert "Derribado" in text and "Fatiga Leve" in text
    assert chain([]) == ""


def test_every_change_the_engine_emits_has_its_own_line():
    # Replay logs that reach every kind of effect; none may fall back to the generic line.
    from rules import replay_trail

    logs = [
        [
            {"kind": "attributes", "scores": {"FUE": 3}},
            {"kind": "suffer", "type": "heridas", "grade": "persistente"},
            {"kind": "surgery"},
            {"kind": "suffer", "type": "shock", "grade": "grave"},
            {"kind": "suffer", "type": "shock", "grade": "leve", "roll": 2},
            {"kind": "suffer", "type": "emocion", "grade": "leve", "variant": "miedo"},
            {"kind": "suffer", "type": "emocion", "grade": "leve", "variant": "euforia"},
            {"kind": "suffer", "type": "afeccion", "grade": "leve", "source": "fiebre"},
            {"kind": "special", "name": "fiebre", "on": False},
            {"kind": "time", "days": 1},
            {"kind": "save", "check": "sin_descanso", "success": False, "roll": 6},
            {"kind": "time", "hours": 6},
            {"kind": "descanso"},
            {"kind": "turn_end"},
        ],
        [
            {"kind": "suffer", "type": "heridas", "grade": "persistente"},
            {"kind": "surgery", "success": False},
            {"kind": "sleep", "hours": 8, "descanso": False},
            {"kind": "suffer", "type": "heridas", "grade": "leve"},
            {"kind": "heal", "success": False},
        ],
        [  # rules v2.2
            {"kind": "suffer", "type": "shock", "grade": "leve", "own_turn": True},
            {"kind": "turn_end"},
            {"kind": "time", "days": 1},
            {"kind": "save", "check": "sin_descanso", "success": False, "roll": 2},
            {"kind": "descanso"},
        ],
    ]
    seen = set()
    for log in logs:
        _, trail = replay_trail(log)
        for effects in trail:
            for effect in effects:
                seen.add(effect["change"])
                for lang in ("es", "en"):
                    line = describe(effect, lang)
                    assert not line.startswith(("Cambio:", "Change:")), (effect, line)
    assert {"scores", "surgery", "duration", "variant", "affliction", "descanso"} <= seen
    assert {"heal_failed", "surgery_failed"} <= seen
    assert {"own_turn", "kept", "sleeps_on", "faint_over"} <= seen


def test_describe_says_when_a_sleep_cannot_be_a_descanso():
    effect = {"rule": "R23", "change": "asleep", "hours": 8, "descanso": False}
    assert describe(effect) == "Se duerme (8 h), sin contar como Descanso"
    assert describe(effect, "en") == "Falls asleep (8 h), not a Long rest"
    assert describe({**effect, "descanso": True}, "en") == "Falls asleep (8 h)"


def test_v21_shock_leve_ends_at_its_next_turn_and_says_which_round():
    this_round = rules.apply(None, {"kind": "suffer", "type": "shock", "grade": "leve", "seed": 1})[
        0
    ]
    after_turn = rules.apply(None, {"kind": "turn_end", "seed": 1})[0]
    after_turn = rules.apply(
        after_turn, {"kind": "suffer", "type": "shock", "grade": "leve", "seed": 2}
    )[0]

    now = texts.card("shock", "leve", lang="es", engine=this_round["engine"])
    later = texts.card("shock", "leve", lang="es", engine=after_turn["engine"])
    english = texts.card("shock", "leve", lang="en", engine=after_turn["engine"])

    assert "próximo Turno" in now["effect"] and "al pasar la Ronda)" in now["ends"]
    assert "Ronda siguiente" in later["ends"] and "next round's" in english["ends"]


def test_the_shock_of_a_sleep_ends_on_waking():
    asleep = rules.apply(None, {"kind": "sleep", "seed": 1})[0]

    shown = texts.card("shock", "persistente", lang="es", engine=asleep["engine"])

    assert shown["ends"].startswith("Al despertar") and "1d6" not in shown["ends"]
    assert "1d6" in texts.card("shock", "persistente", lang="es")["ends"]


def test_v21_shock_leve_text_after_the_round_passed_is_this_rounds_turn():
    state = rules.apply(None, {"kind": "turn_end", "seed": 1})[0]
    state = rules.apply(state, {"kind": "suffer", "type": "shock", "grade": "leve", "seed": 2})[0]
    later = rules.apply(state, {"kind": "time", "rounds": 1, "seed": 3})[0]

    assert "Ronda siguiente" in texts.card("shock", "leve", engine=state["engine"])["ends"]
    assert "Ronda siguiente" not in texts.card("shock", "leve", engine=later["engine"])["ends"]


def test_v22_shock_leve_taken_in_its_own_turn_says_next_rounds_turn():
    shocked = rules.apply(
        None, {"kind": "suffer", "type": "shock", "grade": "leve", "own_turn": True, "seed": 1}
    )[0]
    turn_over = rules.apply(shocked, {"kind": "turn_end", "seed": 2})[0]
    round_over = rules.apply(turn_over, {"kind": "time", "rounds": 1, "seed": 3})[0]

    def ends(state: dict, lang: str = "es") -> str:
        return texts.card("shock", "leve", lang=lang, engine=state["engine"])["ends"]

    # In its turn, and once that turn ended: the turn it loses is next round's.
    assert "Ronda siguiente" in ends(shocked) and "next round's" in ends(shocked, "en")
    assert "Ronda siguiente" in ends(turn_over)
    # The round over, the turn it loses is the one of the round now under way.
    assert "Ronda siguiente" not in ends(round_over)
    assert "próximo Turno" in ends(round_over)


def test_v22_the_new_steps_read_in_both_languages():
    assert describe({"rule": "R24", "change": "sleeps_on", "hours": 8}) == (
        "Sigue durmiendo con el grupo (8 h)"
    )
    assert describe({"rule": "R24", "change": "sleeps_on", "hours": 8}, "en") == (
        "Sleeps on with the party (8 h)"
    )
    kept = {"rule": "R13", "change": "kept", "type": "shock", "grade": "leve"}
    assert describe(kept).startswith("Shock Leve sigue")
    assert describe(kept, "en").startswith("Light Shock stays")


def test_the_scores_read_in_each_language_the_log_keeping_the_spanish_keys():
    from rules.texts import score_label

    assert [score_label(k, "en") for k in ("FUE", "AGI", "DES", "INT", "VOL")] == [
        "STR",
        "AGI",
        "DEX",
        "INT",
        "WIL",
    ]
    assert [score_label(k, "es") for k in ("FUE", "DES", "VOL")] == ["FUE", "DES", "VOL"]
    assert score_label("SUERTE", "en") == "SUERTE"  # a table's own score, as typed
    scores = {"rule": "base", "change": "scores", "scores": {"VOL": 2, "FUE": 3}}
    assert describe(scores, "en") == "Attribute scores: STR 3, WIL 2"
    assert describe(scores, "es") == "Puntuaciones: FUE 3, VOL 2"
