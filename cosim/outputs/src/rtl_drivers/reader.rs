//! A reader of the SystemVerilog subset the pipe is written in (lowRISC style: one statement per
//! assignment, named generate blocks, named port connections): the text preprocessed for a set
//! of defines, tokens, modules with their ports, statements, instances and the signals an
//! expression names. Enough to follow a value from a flop to its driver, not a parser.

/// The text with comments removed and the conditional compilation resolved for `defines`.
pub(super) fn preprocess(text: &str, defines: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut plain = String::with_capacity(text.len());
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        plain.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                plain.push(' ');
            }
            _ => plain.push(c),
        }
    }
    // Per open `ifdef: whether its current branch is kept.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    for line in plain.lines() {
        let t = line.trim();
        let defined = |t: &str| {
            t.split_whitespace()
                .nth(1)
                .is_some_and(|n| defines.contains(&n))
        };
        let live = stack.iter().all(|&(keep, _)| keep);
        if t.starts_with("`ifdef") || t.starts_with("`ifndef") {
            let cond = defined(t) == t.starts_with("`ifdef");
            stack.push((cond, cond));
        } else if t.starts_with("`else") {
            if let Some(top) = stack.last_mut() {
                top.0 = !top.1;
            }
        } else if t.starts_with("`endif") {
            stack.pop();
        } else if !t.starts_with('`') && live {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// SystemVerilog tokens: identifiers, literals (`'0`, `1'b0`, `8'hff` as one token), `'{`,
/// two-character operators, and single characters.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '\'' && b.get(i + 1).is_some_and(|&n| word(n))) {
            // A number, sized or not: digits, then `'`, a base and digits.
            let start = i;
            while i < b.len() && (word(b[i]) || b[i] == '\'') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if word(c) {
            let start = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else {
            let two: String = b[i..(i + 2).min(b.len())].iter().collect();
            if [
                "'{", "<=", ">=", "==", "!=", "&&", "||", "<<", ">>", "::", "+:", "-:", "++",
            ]
            .contains(&two.as_str())
            {
                out.push(two);
                i += 2;
            } else {
                out.push(c.to_string());
                i += 1;
            }
        }
    }
    out
}

pub(super) fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

pub(super) const KEYWORDS: &[&str] = &[
    "assign",
    "always_comb",
    "always_ff",
    "if",
    "else",
    "case",
    "unique",
    "priority",
    "endcase",
    "default",
    "for",
    "genvar",
    "posedge",
    "negedge",
    "or",
    "and",
    "not",
    "logic",
    "begin",
    "end",
];

pub(super) struct Module {
    pub(super) name: String,
    pub(super) inputs: Vec<String>,
    pub(super) outputs: Vec<String>,
    /// Signals assigned with `<=` (the flops).
    pub(super) flops: Vec<String>,
    pub(super) stmts: Vec<Stmt>,
    pub(super) instances: Vec<Instance>,
}

pub(super) struct Stmt {
    pub(super) toks: Vec<String>,
    /// The innermost named block around it (`g_s1_lane`).
    pub(super) block: Option<String>,
}

pub(super) struct Instance {
    pub(super) module: String,
    pub(super) name: String,
    pub(super) block: Option<String>,
    /// Named connections: (port, the connected expression's tokens).
    pub(super) conns: Vec<(String, Vec<String>)>,
}

/// An assignment statement's parts.
pub(super) struct Assignment<'a> {
    pub(super) root: &'a str,
    pub(super) members: Vec<&'a str>,
    pub(super) rhs: &'a [String],
}

impl Stmt {
    /// `root.members = rhs` (with `op` `=` or `<=`), wherever it starts in the statement (a
    /// case label or an `assign` may come first).
    pub(super) fn assignment(&self, op: &str) -> Option<Assignment<'_>> {
        let t = &self.toks;
        let mut depth = 0i32;
        let at = t.iter().position(|x| {
            match x.as_str() {
                "(" | "[" | "{" | "'{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
            depth == 0 && x == op
        })?;
        let mut k = at.checked_sub(1)?;
        if !is_ident(&t[k]) {
            return None;
        }
        let mut path = vec![t[k].as_str()];
        while k >= 2 && t[k - 1] == "." && is_ident(&t[k - 2]) {
            k -= 2;
            path.push(t[k].as_str());
        }
        path.reverse();
        Some(Assignment {
            root: path[0],
            members: path[1..].to_vec(),
            rhs: &t[at + 1..],
        })
    }
}

impl Module {
    pub(super) fn find_instances(&mut self, known: &[String]) {
        for st in &self.stmts {
            let t = &st.toks;
            let Some(k) = t.iter().position(|x| known.contains(x)) else {
                continue;
            };
            let mut j = k + 1;
            if t.get(j).is_some_and(|x| x == "#") {
                j = skip_group(t, j + 1);
            }
            let (Some(name), Some(open)) = (t.get(j), t.get(j + 1)) else {
                continue;
            };
            if !is_ident(name) || open != "(" {
                continue;
            }
            let end = skip_group(t, j + 1);
            let inner = &t[j + 2..end.saturating_sub(1).max(j + 2)];
            let mut conns = Vec::new();
            let mut p = 0;
            while p + 2 < inner.len() {
                if inner[p] == "." && is_ident(&inner[p + 1]) && inner[p + 2] == "(" {
                    let close = skip_group(inner, p + 2);
                    conns.push((
                        inner[p + 1].clone(),
                        inner[p + 3..close.saturating_sub(1)].to_vec(),
                    ));
                    p = close;
                } else {
                    p += 1;
                }
            }
            self.instances.push(Instance {
                module: t[k].clone(),
                name: name.clone(),
                block: st.block.clone(),
                conns,
            });
        }
    }
}

/// The index just past the group that opens at `t[open]` (`(`, `[`, `{`, `'{`).
pub(super) fn skip_group(t: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (i, x) in t.iter().enumerate().skip(open) {
        match x.as_str() {
            "(" | "[" | "{" | "'{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// The modules of a token stream, each with its ports and statements.
pub(super) fn split_modules(t: &[String]) -> Vec<Module> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = t[i..].iter().position(|x| x == "module") {
        let start = i + k;
        let Some(name) = t.get(start + 1) else {
            break;
        };
        let end = t[start..]
            .iter()
            .position(|x| x == "endmodule")
            .map_or(t.len(), |e| start + e);
        // The header: `import ...;` and `#(...)` skipped, then the port list.
        let mut j = start + 2;
        loop {
            match t.get(j).map(String::as_str) {
                Some("import") => {
                    j += t[j..].iter().position(|x| x == ";").unwrap_or(0) + 1;
                }
                Some("#") => j = skip_group(t, j + 1),
                _ => break,
            }
        }
        let mut m = Module {
            name: name.clone(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            flops: Vec::new(),
            stmts: Vec::new(),
            instances: Vec::new(),
        };
        let body_from = if t.get(j).is_some_and(|x| x == "(") {
            let close = skip_group(t, j);
            ports(&t[j + 1..close - 1], &mut m);
            close + 1
        } else {
            j
        };
        m.stmts = statements(&t[body_from.min(end)..end]);
        m.flops = m
            .stmts
            .iter()
            .filter_map(|s| s.assignment("<=").map(|a| a.root.to_string()))
            .collect();
        out.push(m);
        i = end + 1;
        if i >= t.len() {
            break;
        }
    }
    out
}

/// The port list's inputs and outputs (a direction carries over to the ports after it).
pub(super) fn ports(t: &[String], m: &mut Module) {
    let mut dir = "";
    let mut depth = 0;
    let mut last: Option<&str> = None;
    let flush = |dir: &str, last: &mut Option<&str>, m: &mut Module| {
        if let Some(n) = last.take() {
            match dir {
                "input" => m.inputs.push(n.to_string()),
                "output" => m.outputs.push(n.to_string()),
                _ => {}
            }
        }
    };
    for x in t {
        match x.as_str() {
            "[" | "(" => depth += 1,
            "]" | ")" => depth -= 1,
            "," if depth == 0 => flush(dir, &mut last, m),
            "input" | "output" | "inout" if depth == 0 => dir = x,
            s if depth == 0 && is_ident(s) => last = Some(s),
            _ => {}
        }
    }
    flush(dir, &mut last, m);
}

/// Statements of a module body: split at `;`, `begin`, `end` and `else`, each with its
/// innermost named block.
pub(super) fn statements(t: &[String]) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut blocks: Vec<Option<String>> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    let innermost = |b: &[Option<String>]| b.iter().rev().find_map(|x| x.clone());
    while i < t.len() {
        let x = t[i].as_str();
        let flush = |cur: &mut Vec<String>, out: &mut Vec<Stmt>, b: &[Option<String>]| {
            if !cur.is_empty() {
                out.push(Stmt {
                    toks: std::mem::take(cur),
                    block: innermost(b),
                });
            }
        };
        match x {
            "begin" if depth == 0 => {
                flush(&mut cur, &mut out, &blocks);
                if t.get(i + 1).is_some_and(|n| n == ":") && t.get(i + 2).is_some() {
                    blocks.push(Some(t[i + 2].clone()));
                    i += 2;
                } else {
                    blocks.push(None);
                }
            }
            "end" if depth == 0 => {
                flush(&mut cur, &mut out, &blocks);
                blocks.pop();
                // `end : label`
                if t.get(i + 1).is_some_and(|n| n == ":") {
                    i += 2;
                }
            }
            ";" | "else" if depth == 0 => flush(&mut cur, &mut out, &blocks),
            _ => {
                match x {
                    "(" | "[" | "{" | "'{" => depth += 1,
                    ")" | "]" | "}" => depth -= 1,
                    _ => {}
                }
                cur.push(t[i].clone());
            }
        }
        i += 1;
    }
    out
}

pub(super) fn is_struct_literal(rhs: &[String]) -> bool {
    rhs.first().is_some_and(|x| x == "'{")
}

/// The expression of `key` in a struct literal `'{key: expr, ...}`.
pub(super) fn struct_entry<'a>(rhs: &'a [String], key: &str) -> Option<&'a [String]> {
    let end = skip_group(rhs, 0);
    let inner = &rhs[1..end.saturating_sub(1)];
    let mut depth = 0;
    let mut start = 0;
    let mut entries = Vec::new();
    for (i, x) in inner.iter().enumerate() {
        match x.as_str() {
            "(" | "[" | "{" | "'{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                entries.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    entries.push(&inner[start..]);
    entries
        .into_iter()
        .find(|e| e.len() >= 2 && e[0] == key && e[1] == ":")
        .map(|e| &e[2..])
}

pub(super) fn join_tokens(t: &[String]) -> String {
    t.concat()
}

/// A signal named in an expression: `root`, the generate block index when `root` is a block
/// (`g_round[1].res`), and the struct members after it.
#[derive(Debug)]
pub(super) struct Reference {
    pub(super) root: String,
    pub(super) block: Option<String>,
    pub(super) members: Vec<String>,
}

/// The signals an expression reads as data: the branches of a `?:` (not its condition), no
/// function or cast names, no constants (upper-case first letter: parameters and enum values),
/// no bit-select contents.
pub(super) fn references(t: &[String]) -> Vec<Reference> {
    // `c ? x : y` at depth 0: the branches only.
    let mut depth = 0;
    let mut q = None;
    for (i, x) in t.iter().enumerate() {
        match x.as_str() {
            "(" | "[" | "{" | "'{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "?" if depth == 0 && q.is_none() => q = Some(i),
            _ => {}
        }
    }
    if let Some(q) = q {
        let mut depth = 0;
        let mut nested = 0;
        let colon = t.iter().enumerate().skip(q + 1).find_map(|(i, x)| {
            match x.as_str() {
                "(" | "[" | "{" | "'{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                "?" if depth == 0 => nested += 1,
                ":" if depth == 0 && nested > 0 => nested -= 1,
                ":" if depth == 0 => return Some(i),
                _ => {}
            }
            None
        });
        if let Some(c) = colon {
            let mut r = references(&t[q + 1..c]);
            r.extend(references(&t[c + 1..]));
            return r;
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let x = &t[i];
        if x == "[" {
            // A bit select's bounds are constants or indices, not data.
            i = skip_group(t, i);
            continue;
        }
        let next = t.get(i + 1).map(String::as_str);
        let constant = x.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        if !is_ident(x)
            || KEYWORDS.contains(&x.as_str())
            || constant
            || matches!(next, Some("(") | Some("'") | Some("::"))
            || (i > 0 && t[i - 1] == "::")
        {
            i += 1;
            continue;
        }
        let mut r = Reference {
            root: x.clone(),
            block: None,
            members: Vec::new(),
        };
        i += 1;
        if t.get(i).is_some_and(|n| n == "[") {
            let close = skip_group(t, i);
            if x.starts_with("g_") {
                r.block = Some(t[i + 1..close - 1].concat());
            }
            i = close;
        }
        while t.get(i).is_some_and(|n| n == ".") && t.get(i + 1).is_some_and(|n| is_ident(n)) {
            r.members.push(t[i + 1].clone());
            i += 2;
        }
        out.push(r);
    }
    out
}
