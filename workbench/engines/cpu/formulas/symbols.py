"""TeX for the characters formulas are drawn with (see :mod:`.tex`): Greek letters,
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
    "′": "\\prime", "″": "\\prime\\prime", "•": "\\bullet", "◦": "\\circ",
    "∆": "\\Delta", "Ω": "\\Omega", "∠": "\\angle",
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
    "a": ("\\coprod", "op"), "\x00": ("(", "l"), "\x01": (")", "r"), "\x02": ("[", "l"),
    "\x03": ("]", "r"), "\x08": ("\\{", "l"), "\x09": ("\\}", "r"), "\x10": ("(", "l"),
    "\x11": (")", "r"), "\x12": ("(", "l"), "\x13": (")", "r"), "\x14": ("[", "l"),
    "\x15": ("]", "r"), "\x1a": ("\\{", "l"), "\x1b": ("\\}", "r"), "]": ("]", "r"),
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

# TeX's symbol font (CMSY) without a Unicode map: its character codes for lower-case letters
# and digits (its capitals are the calligraphic letters, kept as \mathcal)
CMSY = {
    "0": "\\prime", "1": "\\infty", "2": "\\in", "3": "\\ni", "4": "\\triangle",
    "6": "\\not", "7": "\\mapstochar", "8": "\\forall", "9": "\\exists", "`": "\\vdash",
    "a": "\\dashv", "b": "\\lfloor", "c": "\\rfloor", "d": "\\lceil", "e": "\\rceil",
    "f": "\\{", "g": "\\}", "h": "\\langle", "i": "\\rangle", "j": "|", "k": "\\|",
    "l": "\\updownarrow", "m": "\\Updownarrow", "n": "\\backslash", "o": "\\wr",
    "p": "\\surd", "q": "\\amalg", "r": "\\nabla", "s": "\\int", "t": "\\sqcup",
    "u": "\\sqcap", "v": "\\sqsubseteq", "w": "\\sqsupseteq", "x": "\\S", "y": "\\dagger",
    "z": "\\ddagger", "<": "\\Re", "=": "\\Im", ">": "\\top", "?": "\\perp",
    ";": "\\emptyset", ":": "\\neg", "@": "\\aleph", "5": "\\bigtriangledown",
}  # fmt: skip
