#!/usr/bin/env python3
"""Writes the checked-in seed corpora, fuzz/corpus/<target>/seed-<name>.

The texts are the examples of docs/FORMAT.md and of the crates' behaviour tests. Each target
reads its input in its own layout (see the target's doc comment), so the same text gets the
control bytes that target expects. Run from anywhere: `python3 fuzz/seeds/make_seeds.py`.
"""
import os, random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")

CALL = ("I'll create the file.\n<tool>\n<server_name>local</server_name>\n"
        "<tool_name>write_to_file</tool_name>\n<arguments>\n  <path>src/main.rs</path>\n"
        "  <content>fn main() { if a &amp;&amp; b { .. } }</content>\n</arguments>\n</tool>")

TEXTS = {
    "format-example": CALL,
    "two-calls": "First.\n<tool><tool_name>a</tool_name><arguments><x>1</x></arguments></tool>\n"
                 "Then.\n<tool><tool_name>b</tool_name><arguments><y>2</y></arguments></tool>\nDone.",
    "arrays-objects": "<tool><tool_name>search_files</tool_name><arguments><path>src</path>"
                      "<exclude>node_modules</exclude><exclude>dist</exclude>"
                      "<options><depth>3</depth><hidden>false</hidden></options></arguments></tool>",
    "cdata": "<tool><tool_name>w</tool_name><arguments><content><![CDATA[  if (a && b < c) {\n"
             "\treturn \"x\";\n  }\n]]></content><n><![CDATA[42]]></n>"
             "<s><![CDATA[a]]]]><![CDATA[>b]]></s></arguments></tool>",
    "references": "<tool><tool_name>t</tool_name><arguments><a>&lt;&#60;&#x3C;&amp;&quot;</a>"
                  "<b>\r\n  x\r\n  y\r\n</b></arguments></tool>",
    "legacy-json": "<tool>{\"server_name\":\"s\",\"tool_name\":\"j\",\"arguments\":"
                   "{\"k\":[1,\"</tool>\"],\"o\":{\"a\":null}}}</tool>",
    "repairs": "<tool><tool_name>w</tool_name><arguments><p>a && b</p>"
               "<c>fn f() -> Vec<String> { todo!() }</c><d>Close with </d> and go on.</d>"
               "<e>use </div> here</e><f>x < y</f></arguments></tool>",
    "mixed-content": "<tool><tool_name>w</tool_name><arguments><c>a <b>x</b> c</c>"
                     "<html><div class=\"x\"><p>Hi &amp; bye</p></div></html></arguments></tool>",
    "errors": "<tool><tool_name>a</tool_name><foo/></tool>\n<tool><tool_name>a</tool_name>junk</tool>\n"
              "<tool><tool_name>a</tool_name><arguments><x>&#0;</x></arguments></tool>\n"
              "<tool><tool_name>a</tool_name><arguments><!DOCTYPE x></arguments></tool>\n"
              "<tool><tool_name>a</tool_name><arguments><x><?php echo 1; ?></x></arguments></tool>\n"
              "<tool><arguments><a>1</b></arguments></tool>",
    "unterminated": "<tool><tool_name>a</tool_name><arguments><x>1</x>\n"
                    "<tool><tool_name>b</tool_name></tool>\n<tool><tool_name>c</tool_name><arguments><y>",
    "fenced": "Example:\n```xml\n<tool><tool_name>example</tool_name></tool>\n```\n"
              "Real:\n<tool><tool_name>real</tool_name></tool>",
    "prose-like-markup": "Use <toolbox> or <tools>, a < b && c, <b>bold</b>, `<tool>` in backticks, "
                         "and {\"json\": true}. </tool> is stray. The <tool> tag.",
    "comments-attributes": "<tool a=\"1\">\n  <!-- c -->\n  <tool_name >t</tool_name >\n"
                           "  <arguments><a x='&amp;'>1</a><b/><c /></arguments>\n</tool >",
}

# One reply per dialect (index in `Dialect::ALL`: the control bytes choose it), with prose, two
# calls (code with `<`, `&` and close tags in a value, a name given twice) and reasoning before.
QWEN_BODY = ("<function=write_file>\n<parameter=path>\nsrc/a.rs\n</parameter>\n<parameter=content>\n"
             "fn f() -> Vec<u8> { if a && b { x } }\n</parameter>\n</function>")
INVOKE = ("<{p}invoke name=\"write_file\">\n<{p}parameter name=\"path\">src/a.rs</{p}parameter>\n"
          "<{p}parameter name=\"content\">if a < b && c {{ }} </p> x</{p}parameter>\n"
          "<{p}parameter name=\"path\">again</{p}parameter>\n</{p}invoke>")
DIALECT_TEXTS = [
    (0, "tool", CALL),
    (1, "qwen3-coder", "<think>plan</think>I'll write it.\n<tool_call>\n" + QWEN_BODY + "\n</tool_call>\n"
        "<tool_call>\n<function=run>\n<parameter=cmd>\nls</parameter>\n</function>\n</tool_call> done"),
    (2, "seed-oss", "<seed:think>plan</seed:think>Sure.\n<seed:tool_call>\n" + QWEN_BODY + "\n</seed:tool_call>"),
    (3, "hermes", "<think>x</think>Ok.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, \"</tool_call>\"], "
        "\"b\": \"x & y\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": \"{\\\"k\\\": 1}\"}\n</tool_call>"),
    (4, "glm", "Ok.\n<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.rs</arg_value>\n"
        "<arg_key>content</arg_key>\n<arg_value>if a < b && c { } </arg_value> x</arg_value>\n</tool_call>"
        "<tool_call>get_time</tool_call><tool_call>f<arg_key>a</arg_key><arg_value>[1, 2]</arg_value></tool_call>"),
    (5, "minimax-m2", "<think>x</think>Ok.\n<minimax:tool_call>\n" + INVOKE.format(p="") + "\n</minimax:tool_call>"),
    (6, "anthropic", "Ok.\n<function_calls>\n" + INVOKE.format(p="") + "\n</function_calls>"),
    (7, "deepseek-dsml", "Ok.\n<｜DSML｜function_calls>\n" + INVOKE.format(p="｜DSML｜") + "\n</｜DSML｜function_calls>"),
    (8, "step3", "Ok.\n<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜>" + INVOKE.format(p="steptml:")
        + "<｜tool_call_end｜>\n<｜tool_calls_end｜>"),
    (9, "kimi-k3", "Ok.<|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument key=\"a\" type=\"string\"<|sep|>"
        "x <|close|>y<|close|>argument<|sep|><|open|>argument key=\"n\" type=\"integer\"<|sep|>3<|close|>argument<|sep|>"
        "<|close|>call<|sep|> done"),
    (10, "minimax-m3", "Ok.]<]minimax[>[<tool_call>]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<city>Paris]<]minimax[>[</city>"
         "]<]minimax[>[<when>]<]minimax[>[<day>Mon]<]minimax[>[</day>]<]minimax[>[</when>]<]minimax[>[</invoke>"
         "]<]minimax[>[</tool_call> done"),
    (11, "auto", "Use <tool_call> tags. <tool\t><tool_name>t</tool_name></tool>\n```\n<tool_call>\n"
         + QWEN_BODY + "\n</tool_call>\n```\n<minimax:tool_call>"),
]

AMPERSAND = {
    "adr-context": "<tool>\n<server_name>local</server_name>\n<tool_name>search_files</tool_name>\n"
                   "<arguments>\n  <pattern>func.*&&.*return</pattern>  <!-- Unescaped & -->\n"
                   "  <path>src</path>\n</arguments>\n</tool>",
    "adr-transformation": "<arguments>\n  <pattern>func.*&&.*return</pattern>\n"
                          "  <path>src & tests</path>\n  <existing>&amp; already escaped</existing>\n</arguments>",
    "entities": "<args><text>&#60; &#x3C; &amp; &lt; &gt; &quot; &apos; &am &#; &#x; &#0;</text></args>",
    "url": "<args><url>https://x.org/?a=1&b=2&amp;c=3</url></args>",
    "cdata-pi": "<a><![CDATA[a && b]]><!-- & --><?pi & ?>&&</a>",
}

THREAD = ("<thread>\n  <event type=\"human\" id=\"0\" iteration=\"0\">What is 2+2?</event>\n"
          "  <event type=\"tool_input\" id=\"1\" name=\"calculator\" iteration=\"1\">"
          "{&quot;expression&quot;:&quot;2+2&quot;}</event>\n</thread>\nBased on the above thread, I will now")


# cost_growth: (name, prefix, repeated part, suffix); the control byte 0x00 streams in 1-byte
# chunks with argument deltas, the 4n text about 16 KiB; 0x27 in 8-byte chunks, about 64 KiB;
# b"\xfe" in the repeated part is the copy's number. The shapes of known costly inputs, and ordinary ones for contrast.
CALL_ARG = (b"<tool><tool_name>t</tool_name><arguments><a>", b"</a></arguments></tool>")
COST = [
    ("cdata-crlf", b"<tool><tool_name>t</tool_name><arguments><a><![CDATA[", b"x\r\n", b"]]></a></arguments></tool>"),
    ("cdata-cr", b"<tool><tool_name>t</tool_name><arguments><a><![CDATA[", b"\r", b"]]></a></arguments></tool>"),
    ("bare-ampersands", CALL_ARG[0], b"a && b ", CALL_ARG[1]),
    ("ampersand-attribute", b"<tool><tool_name>t</tool_name><arguments><a x='", b"&", b"'>1</a></arguments></tool>"),
    ("unclosed-comment", b"<tool><tool_name>t</tool_name><arguments><a><!--", b"x -", b""),
    ("distinct-names", b"<tool><tool_name>t</tool_name><arguments>", b"<a\xfe>1</a\xfe>", b"</arguments></tool>"),
    ("empty-elements", CALL_ARG[0], b"<b/>", CALL_ARG[1]),
    ("items", CALL_ARG[0], b"<item>\xfe</item>", CALL_ARG[1]),
    ("many-calls", b"", b"<tool><tool_name>t\xfe</tool_name><arguments><a>1</a></arguments></tool>\n", b""),
    ("legacy-json", b"<tool>{\"tool_name\":\"t\",\"arguments\":{\"a\":[", b"{\"k\":1},", b"1]}}</tool>"),
    ("prose", b"", b"Some prose, a < b && c > d. ", b""),
    ("text", CALL_ARG[0], b"fn main() { x &amp;&amp; y }\n", CALL_ARG[1]),
]


def write(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def main():
    for name, text in TEXTS.items():
        t = text.encode()
        write("parse_mixed", name, b"\x00\x00" + t)
        write("stream_chunking", name, b"\x00\x03\x01\x07\x40" + t)
        write("differential_xml_rs", name, b"\x01" + t)
    write("parse_mixed", "small-limits", b"\x01\xff" + TEXTS["two-calls"].encode())
    for index, name, text in DIALECT_TEXTS:
        t = text.encode()
        cut = t[: len(t) * 2 // 3]
        write("parse_mixed", "dialect-" + name, bytes([index << 2, 0]) + t)
        write("stream_chunking", "dialect-" + name, bytes([index << 3, 3, 1, 7, 64]) + t)
        write("stream_chunking", "dialect-" + name + "-cut", bytes([index << 3 | 1, 2, 3, 5]) + cut)
        # openai_deltas: the dialect, reasoning on (bit 7) for every other one; 5-byte chunks.
        write("openai_deltas", "dialect-" + name, bytes([index | (0x80 if index % 2 else 0), 4]) + t)
        write("openai_deltas", "dialect-" + name + "-cut", bytes([index, 0]) + cut)
    write("stream_chunking", "fenced-small", b"\x03\x01\x05" + TEXTS["fenced"].encode())
    for name, text in AMPERSAND.items():
        write("ampersand_fallback", name, text.encode())
        write("differential_xml_rs", "amp-" + name, b"\x01" + text.encode())
    write("ampersand_fallback", "thread", THREAD.encode())
    for name, prefix, repeat, suffix in COST:
        write("cost_growth", name, b"\x00" + prefix + b"\xff" + repeat + b"\xff" + suffix)
        write("cost_growth", name + "-64k", b"\x27" + prefix + b"\xff" + repeat + b"\xff" + suffix)
    # The structured targets read bytes through `arbitrary`: fixed pseudo-random seeds.
    rng = random.Random(1)
    for target in ["arg_roundtrip", "thread_wellformed", "schema_coerce", "differential_xml_rs"]:
        for i in range(4):
            data = bytes(rng.randrange(256) for _ in range(64 << i))
            if target == "differential_xml_rs":
                data = b"\x00" + data
            write(target, "random-%d" % i, data)


if __name__ == "__main__":
    main()
