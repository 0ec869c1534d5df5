"""TeX for the characters formulas are drawn with (see :mod:`formula_tex`): Greek letters,
operators and relations, big operators, TeX's extension font codes (CMEX, which PDFium
reports unmapped as ASCII), function names TeX knows, math alphabets, accents."""

from __future__ import annotations

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "varepsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "µ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ϖ": "varpi",
    "ρ": "rho", "ϱ": "varrho", "σ": "sigma", "ς": "varsigma", "τ": "tau", "υ": "upsilon",
    "φ": "varphi", "ϕ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma",
    "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma",
    "Υ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}  # fmt: skip
SYMBOLS = {
    "×": "\\times", "÷": "\\div", "⋅": "\\cdot", "·": "\\cdot", "∙": "\\cdot", "±": "\\pm",
    "∓": "\\mp", "−": "-", "–": "-", "∗": "*", "∘": "\\circ", "≤": "\\leq", "≥": "\\geq",
    "≠": "\\neq", "≈": "\\approx", "≡": "\\equiv", "∼": "\\sim", "≃": "\\simeq",
    "≅": "\\cong", "∝": "\\propto", "≪": "\\ll", "≫": "\\gg", "∈": "\\in", "∉": "\\notin",
    "∋": "\\ni", "⊂": "\\subset", "⊃": "\\supset", "⊆": "\\subseteq", "⊇": "\\supseteq",
    "∪": "\\cup", "∩": "\\cap", "∖": "\\setminus", "∧": "\\wedge", "∨": "\\vee", "¬": "\\neg",
    "∀": "\\forall", "∃": "\\exists", "∅": "\\emptyset", "∞": "\\infty", "∂": "\\partial",
    "∇": "\\nabla", "√": "\\surd", "→": "\\to", "←": "\\leftarrow", "↔": "\\leftrightarrow",
    "⇒": "\\Rightarrow", "⇐": "\\Leftarrow", "⇔": "\\Leftrightarrow", "↦": "\\mapsto",
    "…": "\\ldots", "⋯": "\\cdots", "ℓ": "\\ell", "ℏ": "\\hbar", "⟨": "\\langle",
    "⟩": "\\rangle", "⌊": "\\lfloor", "⌋": "\\rfloor", "⌈": "\\lceil", "⌉": "\\rceil",
    "∥": "\\|", "‖": "\\|", "⊕": "\\oplus", "⊗": "\\otimes", "⊥": "\\perp", "□": "\\square",
    "{": "\\{", "}": "\\}", "\\": "\\backslash", "#": "\\#", "%": "\\%", "&": "\\&",
    "$": "\\$", "_": "\\_", "~": "\\sim", "ℕ": "\\mathbb{N}", "ℤ": "\\mathbb{Z}",
    "ℚ": "\\mathbb{Q}", "ℝ": "\\mathbb{R}", "ℂ": "\\mathbb{C}", "ﬁ": "fi", "ﬂ": "fl",
    "′": "\\prime", "″": "\\prime\\prime",
}  # fmt: skip
BIG_OPS = {
    "∑": "\\sum", "∏": "\\prod", "∫": "\\int", "∮": "\\oint", "⋃": "\\bigcup",
    "⋂": "\\bigcap", "∐": "\\coprod", "∬": "\\iint", "∭": "\\iiint", "⨁": "\\bigoplus",
    "⨂": "\\bigotimes",
}  # fmt: skip
# TeX's extension font (CMEX) without a Unicode map: PDFium reports its character codes
CMEX = {
    " ": ("(", "l"), "!": (")", "r"), '"': ("[", "l"), "#": ("]", "r"), "$": ("\\lfloor", "l"),
    "%": ("\\rfloor", "r"), "&": ("\\lceil", "l"), "'": ("\\rceil", "r"), "(": ("\\{", "l"),
    ")": ("\\}", "r"), "*": ("\\langle", "l"), "+": ("\\rangle", "r"), "D": ("\\langle", "l"),
    "E": ("\\rangle", "r"), "P": ("\\sum", "op"), "X": ("\\sum", "op"), "Q": ("\\prod", "op"),
    "Y": ("\\prod", "op"), "R": ("\\int", "op"), "Z": ("\\int", "op"), "H": ("\\oint", "op"),
    "I": ("\\oint", "op"), "S": ("\\bigcup", "op"), "[": ("\\bigcup", "op"),
    "T": ("\\bigcap", "op"), "\\": ("\\bigcap", "op"), "`": ("\\coprod", "op"),
    "a": ("\\coprod", "op"), "]": ("]", "r"),
}  # fmt: skip
NAMED = {"sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "lim", "max", "min",
         "sup", "inf", "det", "deg", "dim", "ker", "gcd", "arg", "sinh", "cosh", "tanh",
         "arcsin", "arccos", "arctan", "Pr", "hom", "lg", "liminf", "limsup"}  # fmt: skip

ALPHABETS = (("DOUBLE-STRUCK", "mathbb"), ("SCRIPT", "mathcal"), ("FRAKTUR", "mathfrak"))
COMBINING = {"\u0302": "hat", "\u0303": "tilde", "\u0304": "bar", "\u0307": "dot",
              "\u0308": "ddot", "\u030c": "check", "\u0306": "breve", "\u0301": "acute",
              "\u0300": "grave", "\u20d7": "vec"}  # fmt: skip

SPACING = {"ˆ": "hat", "^": "hat", "˜": "tilde", "~": "tilde", "¯": "bar", "˙": "dot",
            "¨": "ddot", "ˇ": "check", "˘": "breve", "´": "acute", "⃗": "vec"}  # fmt: skip
