"""A tiny multi-file project (Python, TypeScript, Markdown, a git-ignored
folder) for the code index tests and the /search and /graph screens."""

from __future__ import annotations

import subprocess
from pathlib import Path

FILES = {
    "shop/cart.py": '''"""The shopping cart."""
from shop.pricing import apply_discount


class Cart:
    def __init__(self):
        self.items = []

    def add_item(self, sku, quantity):
        self.items.append((sku, quantity))

    def total(self):
        return apply_discount(sum(q * 10 for _, q in self.items))
''',
    "shop/pricing.py": '''def apply_discount(amount):
    """Ten percent off orders above one hundred."""
    return amount * 0.9 if amount > 100 else amount


def tax_rate(country):
    return {"de": 0.19, "fr": 0.2}.get(country, 0.0)
''',
    "shop/checkout.py": '''from shop.cart import Cart
from shop import pricing


def checkout(skus):
    cart = Cart()
    for sku in skus:
        cart.add_item(sku, 1)
    return cart.total() * (1 + pricing.tax_rate("de"))
''',
    "web/api.ts": '''import { checkout } from "./client";
export function submitOrder(items: string[]): Promise<number> {
  return checkout(items);
}
''',
    "README.md": "# Shop\n\nA tiny shop.\n\n## Discounts\n\nOrders above one hundred get ten percent off.\n",
    "build/generated.py": "def generated_noise():\n    return 'ignored by git'\n",
    ".gitignore": "build/\n",
}


def write_shop(ws: Path) -> Path:
    for path, text in FILES.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)  # rg reads .gitignore in a git work tree
    return ws
