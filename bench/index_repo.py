"""A generated repository for bench/index.py: modules in Python, TypeScript,
Go, Rust and Java that import each other and call each other's functions,
with docstrings and comments in words, at a realistic size (~120 lines a
file). Fixed seed: the same tree every time."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = """account address alert archive audit backup balance batch billing budget buffer cache calendar campaign
cart catalog channel checkout claim client cluster comment config contract coupon credit currency customer
dashboard deadline delivery deposit device discount dispatch document domain draft driver email employee
engine event export feature feed filter folder forecast gateway graph group guest handler history host image
import incident inventory invoice issue item job journal kernel label ledger license limit listing loan locale
log market member message meter metric migration module monitor network node notice offer order owner package
page panel parcel partner payment payroll permission pipeline plan policy portal price printer product profile
project promotion quota queue quote rate receipt record refund region release report request reservation
resource retry review reward role route rule schedule schema score search secret segment sensor server session
shipment signal sku slot snapshot source spend stock storage store subscription supplier survey task tax team
template tenant ticket timer token topic trace transfer trial upload usage user vendor version voucher wallet
warehouse webhook widget window worker workflow zone""".split()
VERBS = "apply build cancel check compute create delete fetch find flush load merge notify parse publish " \
        "read refresh register render reset resolve save schedule send sort split start stop sync update validate".split()
LANGUAGES = (("python", 0.6), ("typescript", 0.15), ("go", 0.1), ("rust", 0.08), ("java", 0.07))


class Module:
    def __init__(self, number: int, language: str, rng: random.Random) -> None:
        self.number = number
        self.language = language
        self.topic = rng.choice(WORDS)
        self.package = f"pkg{number % 50:02d}"
        self.name = f"{self.topic}_{number}"
        self.functions = [f"{rng.choice(VERBS)}_{rng.choice(WORDS)}_{number}_{i}" for i in range(rng.randint(4, 7))]
        self.class_name = f"{self.topic.capitalize()}{rng.choice(WORDS).capitalize()}{number}"
        self.methods = [f"{rng.choice(VERBS)}_{rng.choice(WORDS)}" for _ in range(rng.randint(3, 6))]

    @property
    def path(self) -> str:
        ext = {"python": "py", "typescript": "ts", "go": "go", "rust": "rs", "java": "java"}[self.language]
        if self.language == "java":
            return f"java/com/acme/{self.package}/{self.class_name}.java"
        if self.language == "go":
            return f"go/{self.package}/{self.name}.{ext}"
        if self.language == "rust":
            return f"rust/src/{self.package}/{self.name}.{ext}"
        if self.language == "typescript":
            return f"web/{self.package}/{self.name}.{ext}"
        return f"app/{self.package}/{self.name}.{ext}"


def _sentence(rng: random.Random, n: int = 10) -> str:
    return " ".join(rng.choice(WORDS + VERBS) for _ in range(n)).capitalize() + "."


def _body_lines(rng: random.Random, calls: list[str], indent: str, style: str) -> list[str]:
    lines = []
    for _ in range(rng.randint(6, 14)):
        roll = rng.random()
        if roll < 0.25 and calls:
            lines.append(f"{indent}{_call(rng.choice(calls), style)}")
        elif roll < 0.45:
            lines.append(f"{indent}{'#' if style == 'python' else '//'} {_sentence(rng, 8)}")
        else:
            lines.append(f"{indent}{_assign(rng, style)}")
    return lines


def _call(name: str, style: str) -> str:
    return f"{name}(value)" + ("" if style == "python" else ";")


def _assign(rng: random.Random, style: str) -> str:
    word = rng.choice(WORDS)
    expr = f"{rng.randint(1, 99)} + len(str(value))" if style == "python" else f"{rng.randint(1, 99)}"
    if style == "python":
        return f"{word}_total = {expr}"
    if style == "go":
        return f"_ = {expr}"
    if style == "rust":
        return f"let _{word} = {expr};"
    if style == "java":
        return f"int {word}Total = {expr};"
    return f"const {word}Total = {expr};"


def render(module: Module, imported: list[Module], rng: random.Random) -> str:
    calls = [f for m in imported for f in m.functions[:3]] or module.functions[:3]
    return {"python": _python, "typescript": _typescript, "go": _go, "rust": _rust, "java": _java}[module.language](
        module, imported, calls, rng)


def _python(m: Module, imported: list[Module], calls: list[str], rng: random.Random) -> str:
    out = [f'"""{_sentence(rng, 14)}"""', ""]
    for other in imported:
        out.append(f"from app.{other.package}.{other.name} import {', '.join(other.functions[:3])}")
    out.append("")
    for name in m.functions:
        out += ["", f"def {name}(value):", f'    """{_sentence(rng)}"""']
        out += _body_lines(rng, calls, "    ", "python") + ["    return value", ""]
    out += ["", f"class {m.class_name}:", f'    """{_sentence(rng, 12)}"""', ""]
    for method in m.methods:
        out += [f"    def {method}(self, value):", f'        """{_sentence(rng)}"""']
        out += _body_lines(rng, calls + m.functions[:2], "        ", "python") + ["        return value", ""]
    return "\n".join(out) + "\n"


def _typescript(m: Module, imported: list[Module], calls: list[str], rng: random.Random) -> str:
    out = [f"// {_sentence(rng, 14)}"]
    for other in imported:
        out.append(f'import {{ {", ".join(other.functions[:3])} }} from "../{other.package}/{other.name}";')
    for name in m.functions:
        out += ["", f"/** {_sentence(rng)} */", f"export function {name}(value: number): number {{"]
        out += _body_lines(rng, calls, "  ", "ts") + ["  return value;", "}"]
    out += ["", f"export class {m.class_name} {{"]
    for method in m.methods:
        out += [f"  {method}(value: number): number {{"] + _body_lines(rng, calls, "    ", "ts") + ["    return value;", "  }"]
    return "\n".join(out + ["}"]) + "\n"


def _go(m: Module, imported: list[Module], calls: list[str], rng: random.Random) -> str:
    out = [f"// {_sentence(rng, 14)}", f"package {m.package}", ""]
    for name in m.functions:
        out += [f"// {_sentence(rng)}", f"func {name}(value int) int {{"]
        # Go and Java modules here import nothing callable: they call their own functions.
        out += _body_lines(rng, m.functions[:3], "\t", "go") + ["\treturn value", "}", ""]
    out += [f"type {m.class_name} struct {{ total int }}", ""]
    for method in m.methods:
        out += [f"func (s *{m.class_name}) {method}(value int) int {{"]
        out += _body_lines(rng, m.functions[:2], "\t", "go") + ["\treturn value", "}", ""]
    return "\n".join(out)


def _rust(m: Module, imported: list[Module], calls: list[str], rng: random.Random) -> str:
    out = [f"//! {_sentence(rng, 14)}"]
    for other in imported:
        out.append(f"use crate::{other.package}::{other.name}::{{{', '.join(other.functions[:3])}}};")
    for name in m.functions:
        out += ["", f"/// {_sentence(rng)}", f"pub fn {name}(value: i64) -> i64 {{"]
        out += _body_lines(rng, calls, "    ", "rust") + ["    value", "}"]
    out += ["", f"pub struct {m.class_name} {{ total: i64 }}", "", f"impl {m.class_name} {{"]
    for method in m.methods:
        out += [f"    pub fn {method}(&self, value: i64) -> i64 {{"] + _body_lines(rng, calls, "        ", "rust")
        out += ["        value", "    }"]
    return "\n".join(out + ["}"]) + "\n"


def _java(m: Module, imported: list[Module], calls: list[str], rng: random.Random) -> str:
    out = [f"package com.acme.{m.package};", ""]
    for other in imported:
        out.append(f"import com.acme.{other.package}.{other.class_name};")
    out += ["", f"/** {_sentence(rng, 14)} */", f"public class {m.class_name} {{"]
    for name in m.functions + m.methods:
        out += [f"  /** {_sentence(rng)} */", f"  public int {name}(int value) {{"]
        out += _body_lines(rng, m.functions[:3], "    ", "java") + ["    return value;", "  }", ""]
    return "\n".join(out + ["}"]) + "\n"


def generate(root: Path, count: int, seed: int = 18) -> list[Module]:
    rng = random.Random(seed)
    modules = []
    for number in range(count):
        roll, acc = rng.random(), 0.0
        language = LANGUAGES[-1][0]
        for name, share in LANGUAGES:
            acc += share
            if roll < acc:
                language = name
                break
        modules.append(Module(number, language, rng))
    by_language: dict[str, list[Module]] = {}
    for module in modules:
        by_language.setdefault(module.language, []).append(module)
    for module in modules:
        peers = by_language[module.language]
        imported = [rng.choice(peers) for _ in range(rng.randint(1, 3))]
        imported = [m for m in dict.fromkeys(imported) if m is not module]
        path = root / module.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(module, imported, rng), encoding="utf-8")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "README.md").write_text("# Generated\n\nA generated repository for the index bench.\n")
    return modules
