"""RuleError: why an event cannot be applied, in words a DJ understands (Spanish and English)."""

from __future__ import annotations

# code -> (Spanish, English). Placeholders are filled from the error's params.
MESSAGES: dict[str, tuple[str, str]] = {
    "not_an_object": (
        "El evento no es un objeto JSON.",
        "The event is not a JSON object.",
    ),
    "unknown_kind": (
        "Tipo de evento desconocido: «{value}».",
        "Unknown event kind: '{value}'.",
    ),
    "missing_field": (
        "Falta el campo «{field}».",
        "The field '{field}' is missing.",
    ),
    "bad_choice": (
        "«{value}» no vale para «{field}»; se espera uno de: {allowed}.",
        "'{value}' is not valid for '{field}'; expected one of: {allowed}.",
    ),
    "bad_bool": (
        "«{field}» debe ser verdadero o falso.",
        "'{field}' must be true or false.",
    ),
    "bad_number": (
        "«{field}» debe ser un número positivo.",
        "'{field}' must be a positive number.",
    ),
    "bad_integer": (
        "«{field}» debe ser un número entero positivo.",
        "'{field}' must be a positive whole number.",
    ),
    "bad_text": (
        "«{field}» debe ser un texto no vacío.",
        "'{field}' must be a non-empty text.",
    ),
    "bad_scores": (
        "Las puntuaciones deben ser un objeto de atributo a número entero (p. ej. FUE: 3).",
        "Scores must map each attribute to a whole number (e.g. FUE: 3).",
    ),
    "start_not_first": (
        "«start» solo puede ser el primer evento del registro.",
        "'start' can only be the first event of the log.",
    ),
    "time_one_unit": (
        "Indica exactamente una medida de tiempo: rounds, minutes, hours o days.",
        "Give exactly one amount of time: rounds, minutes, hours or days.",
    ),
    "variant_outside_emocion": (
        "Solo la Emoción tiene variantes (miedo, euforia, terror, ira, abatimiento).",
        "Only Emoción has variants (miedo, euforia, terror, ira, abatimiento).",
    ),
    "variant_missing": (
        "La Emoción {grade} necesita una variante: {allowed}.",
        "{grade} Emotion needs a variant: {allowed}.",
    ),
    "variant_grade": (
        "La variante «{value}» no corresponde a Emoción {grade}; se espera: {allowed}.",
        "The variant '{value}' does not fit {grade} Emotion; expected: {allowed}.",
    ),
    "especifico_option_off": (
        "Los E.Esp específicos no están activados en esta campaña.",
        "Specific special states (especificos) are not enabled in this campaign.",
    ),
    "especifico_bad": (
        "«{value}» no es un E.Esp específico de {type}; se espera uno de: {allowed}.",
        "'{value}' is not a specific special state of {type}; expected one of: {allowed}.",
    ),
    "especifico_missing": (
        "Con E.Esp específicos, las Heridas persistentes deben indicar cuál: {allowed}.",
        "With specific special states on, Heridas persistente must name one: {allowed}.",
    ),
    "self_heal": (
        "Un PJ no puede curarse a sí mismo sin el poder «regeneración».",
        "A PJ cannot heal itself without the power 'regeneracion'.",
    ),
    "heal_twice": (
        "Este PJ ya fue tratado (Curación o cirugía, con éxito o no): necesita un Descanso o "
        "nuevas Heridas antes de otro tratamiento.",
        "This PJ was already treated (healing or surgery, successful or not): it needs a "
        "Descanso or new Heridas before another treatment.",
    ),
    "heal_nothing": (
        "No hay Heridas leves ni graves que curar.",
        "There are no Heridas leve or grave to heal.",
    ),
    "surgery_nothing": (
        "La cirugía necesita Heridas persistentes marcadas.",
        "Surgery needs Heridas persistente to be marked.",
    ),
    "check_unknown": (
        "Tirada desconocida: «{value}».",
        "Unknown check: '{value}'.",
    ),
    "check_not_pending": (
        "No queda pendiente ninguna «{value}».",
        "No '{value}' is pending.",
    ),
    "check_mandatory": (
        "«{value}» es obligatoria: hay que resolverla, no se puede descartar.",
        "'{value}' is mandatory: resolve it, it cannot be dismissed.",
    ),
    "asleep_already": (
        "El PJ ya está dormido.",
        "The PJ is already asleep.",
    ),
    "not_asleep": (
        "El PJ no está dormido.",
        "The PJ is not asleep.",
    ),
    "recover_not_marked": (
        "{type} {grade} no está marcado.",
        "{grade} {type} is not marked.",
    ),
    "recover_sleep": (
        "El Shock persistente del sueño termina al despertar, no se puede quitar.",
        "The Shock persistente of sleep ends on waking; it cannot be removed.",
    ),
    "progress_type": (
        "Solo la Afección avanza de fase.",
        "Only Afección moves on to another phase.",
    ),
    "progress_none": (
        "No hay ninguna Afección que avance.",
        "There is no Afección to move on.",
    ),
    "progress_max": (
        "La Afección ya está en su última fase (persistente).",
        "The Afección is already in its last phase (persistente).",
    ),
    "special_missing": (
        "El PJ no tiene el E.Esp «{value}».",
        "The PJ does not have the special state '{value}'.",
    ),
    "special_derived": (
        "«{value}» depende del Shock o del sueño; no se da ni se quita a mano.",
        "'{value}' follows from Shock or sleep; it is not given or removed by hand.",
    ),
    "dice_missing": (
        "Hace falta una tirada de 1d{sides}: indica «roll» (o «seed»).",
        "A 1d{sides} roll is needed: give 'roll' (or 'seed').",
    ),
    "roll_range": (
        "La tirada debe estar entre 1 y {sides}.",
        "The roll must be between 1 and {sides}.",
    ),
    "esfuerzo_no_fue": (
        "El esfuerzo prolongado necesita la puntuación de FUE del PJ.",
        "Prolonged effort needs the PJ's STR score.",
    ),
    "esfuerzo_long": (
        "Con la regla de esfuerzo prolongado, ese tiempo se anota en rondas o minutos: las "
        "horas o días de trabajo duro son cosa del DJ.",
        "With the prolonged effort rule on, effort time is logged in rounds or minutes: hours "
        "or days of hard work are the GM's call.",
    ),
    "bad_option": (
        "Opción de campaña no válida: «{field}».",
        "Invalid campaign option: '{field}'.",
    ),
    "bad_state": (
        "El estado guardado no es válido.",
        "The stored state is not valid.",
    ),
}


class RuleError(ValueError):
    """An event that breaks a rule or names an unknown value; applying it changes nothing."""

    def __init__(
        self,
        code: str,
        *,
        index: int | None = None,
        field: str | None = None,
        **params: object,
    ) -> None:
        self.code = code
        self.index = index
        self.field = field
        self.params = {"field": field, **params}
        super().__init__(self._text("en"))

    def message(self, lang: str = "es") -> str:
        """The reason alone, in the UI's language (Spanish unless `lang` is "en")."""
        from rules.texts import CHECKS, GRADE_LABELS, SPECIALS, TYPE_LABELS  # no import back

        lang = "en" if str(lang).lower().startswith("en") else "es"
        params = dict(self.params)
        # Game words read as labels ("Heridas Leve", "Light Wounds"), not as JSON values.
        for key, table in (("type", TYPE_LABELS), ("grade", GRADE_LABELS)):
            value = params.get(key)
            if isinstance(value, str) and value in table:
                params[key] = table[value][lang]
        # A check or an E.Esp as the cards name it ("TS VOL: salir de Shock grave").
        value = params.get("value")
        if isinstance(value, str) and self.code.startswith("check_") and value in CHECKS:
            params["value"] = CHECKS[value][lang]["label"]
        elif isinstance(value, str) and self.code.startswith("special_") and value in SPECIALS:
            params["value"] = SPECIALS[value][lang]["label"]
        es, en = MESSAGES[self.code]
        return (en if lang == "en" else es).format(**params)

    def _text(self, lang: str) -> str:
        where = "" if self.index is None else f"event {self.index}: "
        return where + self.message(lang)

    def __str__(self) -> str:
        return self._text("en")
