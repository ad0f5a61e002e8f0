//! `cargo bench -p arg-types --bench names`: time against the number of argument names.
//!
//! A call with `n` distinct argument names, read blind (`arguments_from_element`) and through a
//! schema listing every name (`coerce_arguments`), at doubling sizes; prints the median time and
//! its ratio to the previous size (2 when linear, 4 when quadratic). `-- --smoke` runs the
//! smallest size once. Figures for docs: issue 14 item 4.

#![forbid(unsafe_code)]

use arg_types::raw::type_raw_arguments;
use arg_types::schema::coerce_arguments;
use arg_types::tree::arguments_from_element;
use serde_json::{Value as Json, json};
use std::hint::black_box;
use std::time::{Duration, Instant};
use xml_fallback::tree::{Element, Node};

fn call(n: usize) -> (Element, Json, Vec<(String, String)>) {
    let mut args = Element::new("arguments");
    let mut props = serde_json::Map::new();
    let mut pairs = Vec::with_capacity(n);
    for i in 0..n {
        let name = format!("p{i}");
        args.children.push(Node::Element(Element::with_text(
            name.clone(),
            i.to_string(),
        )));
        props.insert(name.clone(), json!({"type": "integer"}));
        pairs.push((name, i.to_string()));
    }
    (args, json!({"type": "object", "properties": props}), pairs)
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let smoke = std::env::args().any(|a| a == "--smoke");
    let (sizes, runs): (&[usize], usize) = if smoke {
        (&[1_000], 1)
    } else {
        (&[5_000, 10_000, 20_000, 40_000, 80_000], 5)
    };
    println!("| names | blind | ratio | schema | ratio | raw + schema | ratio |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut last: Option<[Duration; 3]> = None;
    for &n in sizes {
        let (args, schema, pairs) = call(n);
        let blind = median(runs, || {
            black_box(arguments_from_element(black_box(&args)));
        });
        let coerced = median(runs, || {
            black_box(coerce_arguments(black_box(&args), &schema, None).expect("fits"));
        });
        let raw = median(runs, || {
            let it = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            black_box(type_raw_arguments(it, Some(&schema)));
        });
        let now = [blind, coerced, raw];
        let ratio = |i: usize| {
            last.map_or(String::from("–"), |l| {
                format!("{:.1}", now[i].as_secs_f64() / l[i].as_secs_f64())
            })
        };
        println!(
            "| {n} | {:.1} ms | {} | {:.1} ms | {} | {:.1} ms | {} |",
            blind.as_secs_f64() * 1e3,
            ratio(0),
            coerced.as_secs_f64() * 1e3,
            ratio(1),
            raw.as_secs_f64() * 1e3,
            ratio(2),
        );
        last = Some(now);
    }
}
