"""Optimisation overrides: where a source changes the options it is compiled with.

A grade names the flag set a candidate was built with; a source can override it from
inside (`#pragma GCC optimize ("Ofast")`, `__attribute__((target("avx512f")))`,
`#pragma clang fp reassociate(on)`, numba's `fastmath=True`, ...). find_overrides() finds
such places so that the build records them (hpcab.build.Build.overrides) and the grade
shows them (`flagset_overridden`): a grade never claims a flag set the code overrode.

A textual scan, not a compiler: comments are skipped, `\\` line continuations are joined
(the reported line is where the construct starts), a `_Pragma("...")` or MSVC
`__pragma(...)` is judged by its text wherever it is (a macro that hides one is found at
its #define), and the words of an override passed through a macro's argument
(`PRAGMA(GCC optimize("Ofast"))`, for `#define PRAGMA(x) _Pragma(#x)`) are found where
they are written. Loop and parallelism hints (`#pragma omp`, `GCC ivdep`, `GCC unroll`,
`clang loop`, `!GCC$ IVDEP`) are not overrides: they say what code to make, not under
which options. It never raises: a source it cannot read is reported as such.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize

MAX_TEXT = 160                   # the longest construct quoted in a report
MAX_FOUND = 50                   # reported one by one; then "and N more"
MAX_TOKENIZED = 256 << 10        # a larger Python source is scanned line by line (tokenize is slow)

C_LANGUAGES = ("c", "cpp", "cuda", "hip")
FORTRAN_LANGUAGES = ("fortran",)
PYTHON_LANGUAGES = ("python", "pythran")


def find_overrides(source: str, language: str) -> tuple[str, ...]:
    """One short string per override in the source, in source order, such as
    `line 3: #pragma GCC optimize ("Ofast")`; () when there is none (or the language has
    no scanner)."""
    try:
        if language in C_LANGUAGES:
            t, spans = _c_family(source)
            found = sorted(set(spans))
            describe = lambda span: (t.line(span[0]), t.code[span[0]:span[1]])   
        elif language in FORTRAN_LANGUAGES + PYTHON_LANGUAGES:
            found = sorted(set(_fortran(source) if language in FORTRAN_LANGUAGES else _python(source)))
            describe = lambda item: (item[0], item[2])                              
        else:
            return ()
        out = []
        for item in found[:MAX_FOUND]:       # only those shown are worded (a source may hold very many)
            line, text = describe(item)
            out.append(f"line {line}: {_quote(text)}")
    except Exception as exc:      # a scanner bug must not fail a build, nor pass it off as clean
        return (f"the source could not be scanned for optimisation overrides ({type(exc).__name__})",)
    if len(found) > MAX_FOUND:
        out.append(f"and {len(found) - MAX_FOUND} more")
    return tuple(out)


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


# ---- C, C++, CUDA, HIP ---------------------------------------------------------------

# What a pragma's text (after `#pragma`, or inside _Pragma/__pragma) must start with to be
# an override; namespaces compared case-insensitively (a near miss costs nothing here).
_PRAGMA_WORDS = {
    "gcc": {"optimize", "__optimize__", "target", "__target__"},
    "clang": {"fp", "optimize"},
    "stdc": {"fp_contract", "fenv_access", "cx_limited_range", "fenv_round", "fenv_dec_round"},
    "intel": {"optimization_level", "optimization_parameter"},
}
_PRAGMA_ALONE = {"float_control", "fp_contract", "fenv_access", "optimize", "optimization_level",
                 "optimization_parameter"}
# Attributes (GNU __attribute__((...)) or C++ [[ns::...]]) that set a function's options.
_ATTRIBUTES = {"optimize", "target", "target_clones", "target_version", "optnone", "minsize"}
_ATTRIBUTE_NAMESPACES = {"gnu", "__gnu__", "clang", "_clang"}
_ATTRIBUTE_HINTS = ("optimize", "target", "optnone", "minsize")     # in every name of _ATTRIBUTES
_ATTRIBUTE_HINT = re.compile("|".join(_ATTRIBUTE_HINTS), re.IGNORECASE)

# The words of an override outside a pragma (a macro's argument that is stringized into one).
_BARE = re.compile(r"\bGCC\s+(?:__)?(?:optimize|target)(?:__)?\b|\bclang\s+(?:fp|optimize)\b"
                   r"|\bSTDC\s+(?:FP_CONTRACT|FENV_ACCESS|CX_LIMITED_RANGE|FENV_ROUND)\b"
                   r"|\b(?:float_control|fp_contract)\s*\(", re.IGNORECASE)
_BARE_HINTS = ("gcc", "clang", "stdc", "float_control", "fp_contract")     # one of them, or no _BARE match
_SPLICE = re.compile(r"\\[ \t]*\n")
_NOT_NEWLINE = re.compile(r"[^\n]")
# Comments, then string and character literals (a raw string R"d(...)d" whole); a ' after a
# hex digit is a C++14 digit separator, not a character literal.
# (Each alternative starts with a literal character, which keeps the scan fast; a prefix
# such as u8 in u8R"(...)" stays code.)
_LEXEME = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)'
                     r'|R"(?P<d>[^()\\\s"]{0,16})\(.*?(?:\)(?P=d)"|\Z)'
                     r'|"(?:\\.|[^"\\\n])*"?|\'(?<![0-9A-Fa-f]\')(?:\\.|[^\'\\\n])*\'?', re.DOTALL)
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*pragma\b[ \t]*(?P<body>[^\n]*)", re.MULTILINE)
_PRAGMA_OP = re.compile(r"_Pragma\s*\(")
_MS_PRAGMA = re.compile(r"__pragma\s*\(")
_STRING = re.compile(r'\s*(?:u8|[uUL])?"((?:\\.|[^"\\\n])*)"')      # (matched on code: masked has it blank)
_GNU_ATTRIBUTE = re.compile(r"__attribute(?:__)?\s*\(\s*\(")
_CXX_ATTRIBUTE = re.compile(r"\[\s*\[")
_BRACKET = re.compile(r"[()\[\]]")
_CLOSE = re.compile(r"\s*\)")
_WORD = re.compile(r"[A-Za-z_]\w*")


class _Text:
    """The source in C's translation phases 1-3: CRLF made LF, `\\` continuations joined,
    comments blanked (code), and string and character literals blanked too (masked): the
    same length, so a position means the same in both, and line() gives its source line."""

    def __init__(self, source: str):
        self.text = text = source.replace("\r\n", "\n").replace("\r", "\n")
        self.splices: list[int] = []          # where (in the joined text) each continuation was
        self.removed: list[int] = []          # ... and how much was removed up to it
        spliced = text
        if "\\" in text and _SPLICE.search(text):
            total = 0
            for start, end in (m.span() for m in _SPLICE.finditer(text)):
                self.splices.append(start - total)
                total += end - start
                self.removed.append(total)
            spliced = _SPLICE.sub("", text)

        def blank(m: re.Match) -> str:
            g = m.group()
            return " " * len(g) if "\n" not in g else _NOT_NEWLINE.sub(" ", g)

        self.code = _LEXEME.sub(lambda m: blank(m) if m.group()[0] == "/" else m.group(), spliced)
        self.masked = _LEXEME.sub(blank, spliced)

    def line(self, pos: int) -> int:
        i = bisect.bisect_right(self.splices, pos)
        return 1 + self.text.count("\n", 0, pos + (self.removed[i - 1] if i else 0))


def _inside_word(text: str, pos: int) -> bool:
    return pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")


def _pragma_overrides(body: str) -> bool:
    """Is this pragma text (what follows `#pragma`) one that changes options?"""
    words = [w.group().lower() for w, _ in zip(_WORD.finditer(body), range(2))]
    if not words:
        return False
    if words[0] in _PRAGMA_WORDS:
        return len(words) > 1 and words[1] in _PRAGMA_WORDS[words[0]]
    return words[0] in _PRAGMA_ALONE


def _destringize(literal: str) -> str:
    """A _Pragma's string literal's contents as the pragma text (C11 6.10.9)."""
    return literal.replace('\\"', '"').replace("\\\\", "\\")


def _split_top(text: str) -> list[str]:
    """Split an attribute list at its top-level commas."""
    parts, depth, last = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return parts


def _plain(name: str) -> str:
    name = name.lower()
    return name[2:-2] if name.startswith("__") and name.endswith("__") and len(name) > 4 else name


def _c_family(source: str) -> tuple[_Text, list[tuple[int, int]]]:
    """The text, and the span of each override in it."""
    t = _Text(source)
    found: list[tuple[int, int]] = []
    spans: list[tuple[int, int]] = []                 # what is judged already: #pragma lines, findings
    closing = _Brackets(t.masked)

    def add(start: int, end: int) -> None:
        found.append((start, end))
        spans.append((start, end))

    for m in _DIRECTIVE.finditer(t.masked):
        end = m.end()
        spans.append((m.start(), end))
        if _pragma_overrides(t.code[m.start("body"):end]):
            add(m.start() + len(m.group()) - len(m.group().lstrip()), end)
    for m in _PRAGMA_OP.finditer(t.masked):
        if _inside_word(t.masked, m.start()):
            continue
        literal = _STRING.match(t.code, m.end())
        if literal and _pragma_overrides(_destringize(literal.group(1))):
            close = _CLOSE.match(t.masked, literal.end())
            add(m.start(), close.end() if close else literal.end())
    # A construct inside one already examined (bracketed text that holds another) is not
    # examined again: the scan stays linear whatever the source nests.
    lowered = t.masked.lower()
    examined = 0
    for m in _MS_PRAGMA.finditer(t.masked) if "__pragma" in t.masked else ():
        if m.start() < examined or _inside_word(t.masked, m.start()):
            continue
        examined = end = closing(m.end() - 1)
        if _pragma_overrides(t.code[m.end():end]):
            add(m.start(), end)
    attributes = any(w in lowered for w in _ATTRIBUTE_HINTS)     # or none of them can be an override
    examined = 0
    for m in _GNU_ATTRIBUTE.finditer(t.masked) if attributes else ():
        if m.start() < examined or _inside_word(t.masked, m.start()):
            continue
        outer = t.masked.index("(", m.start())
        inner = t.masked.index("(", outer + 1)
        examined = end = closing(outer)
        if not _ATTRIBUTE_HINT.search(t.masked, inner, end):
            continue
        names = [_WORD.match(part.strip()) for part in _split_top(t.masked[inner + 1:max(inner + 1, end - 2)])]
        if any(n and _plain(n.group()) in _ATTRIBUTES for n in names):
            add(m.start(), end)
    examined = 0
    for m in _CXX_ATTRIBUTE.finditer(t.masked) if attributes else ():
        if m.start() < examined:
            continue
        examined = end = closing(m.start())
        if not _ATTRIBUTE_HINT.search(t.masked, m.end(), end):
            continue
        body = t.masked[m.end():max(m.end(), end - 2)].strip()
        using = re.match(r"using\s+(\w+)\s*:", body)
        namespace = using.group(1).lower() if using else None
        if using:
            body = body[using.end():]
        for part in _split_top(body):
            q = re.match(r"\s*(?:(\w+)\s*::\s*)?(\w+)", part)
            if not q:
                continue
            ns = (q.group(1) or namespace or "").lower()
            if ns in _ATTRIBUTE_NAMESPACES and _plain(q.group(2)) in _ATTRIBUTES:
                add(m.start(), end)
                break
    if not any(w in lowered for w in _BARE_HINTS):
        return t, found
    judged = _merged(spans)
    starts = [a for a, _ in judged]
    line_end = -1
    for m in _BARE.finditer(t.masked):
        i = bisect.bisect_right(starts, m.start()) - 1
        if m.start() <= line_end or (i >= 0 and m.start() < judged[i][1]):
            continue                                   # on a line reported, a #pragma line, or a finding
        line_start = t.masked.rfind("\n", 0, m.start()) + 1
        line_end = t.masked.find("\n", m.start())
        line_end = len(t.masked) if line_end < 0 else line_end
        lead = t.code[line_start:m.start()]
        add(line_start + len(lead) - len(lead.lstrip()), line_end)
    return t, found


class _Brackets:
    """Where each ( or [ of a (masked) text closes, matched in one pass: called with an
    opening bracket's position, the position just past its match; the end of its line when
    it has none."""

    def __init__(self, text: str):
        self.text, self.ends = text, None

    def __call__(self, open_at: int) -> int:
        if self.ends is None:
            self.ends = {}
            stack: list[tuple[str, int]] = []
            for m in _BRACKET.finditer(self.text):
                ch, at = m.group(), m.start()
                if ch in "([":
                    stack.append((ch, at))
                    continue
                want = "(" if ch == ")" else "["
                while stack and stack[-1][0] != want:      # an opener never closed
                    stack.pop()
                if stack:
                    self.ends[stack.pop()[1]] = at + 1
        end = self.ends.get(open_at)
        if end is None:
            newline = self.text.find("\n", open_at)
            end = len(self.text) if newline < 0 else newline
        return end


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


# ---- Fortran --------------------------------------------------------------------------

# A directive: `!GCC$`, `!DIR$`, `!DEC$` (free form, anywhere before it on the line only
# blanks), or with C or * in column 1 (fixed form).
_F_DIRECTIVE = re.compile(r"^(?:[ \t]*!|[cC*])(gcc|dir|dec)\$(.*)$", re.IGNORECASE | re.MULTILINE)
_F_OVERRIDES = {"optimize", "nooptimize", "options", "fma", "nofma", "float_control", "fp_contract",
                "optimization_parameter", "optimization_level"}
_F_ATTRIBUTES = {"optimize", "nooptimize", "target", "target_clones", "optnone", "fma", "nofma",
                 "optimization_parameter"}


def _fortran(source: str) -> list[tuple[int, int, str]]:
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    found = []
    line, counted = 1, 0
    for m in _F_DIRECTIVE.finditer(text):
        words = [w.lower() for w in _WORD.findall(m.group(2).split("::")[0])]
        if not words:
            continue
        if words[0] in _F_OVERRIDES or (words[0] == "attributes" and _F_ATTRIBUTES & set(words[1:])):
            line += text.count("\n", counted, m.start())
            counted = m.start()
            found.append((line, m.start(), m.group().strip()))
    return found


# ---- Python: numba, pythran ----------------------------------------------------------

_PY_ENVIRONMENT = {"NUMBA_OPT", "NUMBA_FASTMATH", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"}
_PYTHRAN_COMMENT = re.compile(r"#\s*pythran\b", re.IGNORECASE)
# Compiler options in a pythran comment: -O..., -f..., -m... (-ffast-math, -Ofast, -march=...).
_PYTHRAN_OPTION = re.compile(r"(?<![\w-])-(?:O\w*|f[\w-]+(?:=\S+)?|m[\w-]+(?:=\S+)?)")
_PY_FASTMATH = re.compile(r"""\bfastmath\b['"]?\s*[=:]\s*(?!False\b|None\b|0\b|\{\s*\}|set\(\s*\))""")


def _python(source: str) -> list[tuple[int, int, str]]:
    lines = source.split("\n")             # as tokenize counts them
    if "fastmath" not in source and "pythran" not in source.lower() and "NUMBA_" not in source:
        return []
    if len(source) > MAX_TOKENIZED:
        return _python_lines(lines)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return _python_lines(lines)
    found = []
    significant = [tok for tok in tokens if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                                              tokenize.DEDENT, tokenize.COMMENT)]
    for i, tok in enumerate(significant):
        (row, col) = tok.start
        if tok.type == tokenize.NAME and tok.string == "fastmath" or (
                tok.type == tokenize.STRING and _literal(tok.string) == "fastmath"):
            if i + 2 < len(significant) and significant[i + 1].string in ("=", ":"):
                value = significant[i + 2]
                if value.string in ("False", "None", "0") or value.string in ("{", "(", "set") and _empty(
                        significant, i + 2):
                    continue
                found.append((row, col, _py_span(lines, tok.start, _value_end(significant, i + 2))))
        elif tok.type == tokenize.STRING and _literal(tok.string) in _PY_ENVIRONMENT:
            found.append((row, col, lines[row - 1].strip()))
    for tok in tokens:
        if tok.type == tokenize.COMMENT and _PYTHRAN_COMMENT.match(tok.string) and _PYTHRAN_OPTION.search(
                tok.string):
            found.append((tok.start[0], tok.start[1], tok.string))
    return found


def _literal(token: str) -> str | None:
    m = re.fullmatch(r"[rRbBuU]{0,2}(['\"])(.*)\1", token, re.DOTALL)
    return m.group(2) if m else None


def _empty(tokens, i: int) -> bool:
    """{} / () / set() at tokens[i]."""
    s = tokens[i].string
    if s in ("{", "("):
        return i + 1 < len(tokens) and tokens[i + 1].string in ("}", ")")
    return i + 2 < len(tokens) and tokens[i + 1].string == "(" and tokens[i + 2].string == ")"


def _value_end(tokens, i: int) -> tuple[int, int]:
    """Where the value starting at tokens[i] ends: at its bracket's match, else its token's
    end (looking no further than the quote needs)."""
    depth = 0
    for tok in tokens[i:i + 200]:
        if tok.string in ("(", "[", "{"):
            depth += 1
        elif tok.string in (")", "]", "}"):
            depth -= 1
        if depth <= 0:
            return tok.end
    return tokens[i].end


def _py_span(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (r0, c0), (r1, c1) = start, end
    if r0 == r1:
        return lines[r0 - 1][c0:c1]
    return " ".join([lines[r0 - 1][c0:]] + lines[r0:r1 - 1] + [lines[r1 - 1][:c1]])


def _python_lines(lines: list[str]) -> list[tuple[int, int, str]]:
    """A source tokenize cannot read (it will not build either): line by line."""
    found = []
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            if _PYTHRAN_COMMENT.match(stripped) and _PYTHRAN_OPTION.search(stripped):
                found.append((n, 0, stripped))
            continue
        m = _PY_FASTMATH.search(line)
        if m or any(f"'{v}'" in line or f'"{v}"' in line for v in _PY_ENVIRONMENT):
            found.append((n, m.start() if m else 0, stripped))
    return found
