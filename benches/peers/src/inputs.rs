//! The inputs: dense code (the generator of `crates/toolcall/benches/support/workload.rs`, so the
//! content is the one the main harness measures) written as a `write_file` call in each dialect,
//! and a response of 1,000 small calls.

/// The generator of the main harness, included by path: the peers read the bytes it measures.
#[path = "../../../crates/toolcall/benches/support/code.rs"]
mod code;

use code::{Rng, code_line, dense_code};

/// The three tool-call dialects every parser here reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Qwen3Coder,
    Glm,
    MiniMaxM2,
}

impl Form {
    pub const ALL: [Form; 3] = [Form::Qwen3Coder, Form::Glm, Form::MiniMaxM2];

    pub fn label(self) -> &'static str {
        match self {
            Form::Qwen3Coder => "Qwen3-Coder",
            Form::Glm => "GLM",
            Form::MiniMaxM2 => "MiniMax-M2",
        }
    }
}

/// One `write_file` call the parsers must give back: its `path` and `content` arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub path: String,
    pub content: String,
}

/// `write_file(path, content)` in `form`, as the model writes it.
pub fn write_file(form: Form, path: &str, content: &str, out: &mut String) {
    match form {
        Form::Qwen3Coder => {
            out.push_str("<tool_call>\n<function=write_file>\n<parameter=path>\n");
            out.push_str(path);
            out.push_str("\n</parameter>\n<parameter=content>\n");
            out.push_str(content);
            out.push_str("\n</parameter>\n</function>\n</tool_call>");
        }
        Form::Glm => {
            out.push_str("<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>");
            out.push_str(path);
            out.push_str("</arg_value>\n<arg_key>content</arg_key>\n<arg_value>");
            out.push_str(content);
            out.push_str("</arg_value>\n</tool_call>");
        }
        Form::MiniMaxM2 => {
            out.push_str("<minimax:tool_call>\n<invoke name=\"write_file\">\n");
            out.push_str("<parameter name=\"path\">");
            out.push_str(path);
            out.push_str("</parameter>\n<parameter name=\"content\">");
            out.push_str(content);
            out.push_str("</parameter>\n</invoke>\n</minimax:tool_call>");
        }
    }
}

/// A model response and the calls it holds.
pub struct Workload {
    pub text: String,
    pub expected: Vec<Expected>,
}

/// One `write_file` call of `size` bytes of dense code.
pub fn one_call(form: Form, size: usize) -> Workload {
    let content = dense_code(size, 7);
    let mut text = String::with_capacity(size + 256);
    write_file(form, "src/a.rs", &content, &mut text);
    Workload {
        text,
        expected: vec![Expected {
            path: "src/a.rs".into(),
            content,
        }],
    }
}

/// `n` small `write_file` calls, one line of code each, a newline between calls.
pub fn small_calls(form: Form, n: usize) -> Workload {
    let mut rng = Rng::new(11);
    let mut text = String::new();
    let mut expected = Vec::with_capacity(n);
    for i in 0..n {
        let mut content = String::new();
        code_line(&mut rng, &mut content);
        let content = content.trim().to_string();
        let path = format!("src/m{i}.rs");
        if i > 0 {
            text.push('\n');
        }
        write_file(form, &path, &content, &mut text);
        expected.push(Expected { path, content });
    }
    Workload { text, expected }
}
