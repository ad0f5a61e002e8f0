//! The reference readers: quick-xml and xml-rs reading the same bytes into events, and the
//! memchr scan that bounds every reader from above. Each gives back the `content` text, so
//! that it can be checked once before it is timed and does the same work as our parser.

use quick_xml::events::Event;

/// quick-xml's `Reader` over the call, decoding the text of `<content>` (its references come as
/// `GeneralRef` events and are resolved here; CDATA as it is).
pub(crate) fn quick_xml_content(xml: &str) -> String {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut content = String::new();
    let mut inside = false;
    loop {
        match reader.read_event().expect("quick-xml reads the call") {
            Event::Start(e) => inside = e.name().as_ref() == "content",
            Event::End(_) => inside = false,
            Event::Text(t) if inside => content.push_str(&t.xml10_content()),
            Event::CData(t) if inside => content.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if inside => {
                match r.resolve_char_ref().expect("valid character reference") {
                    Some(c) => content.push(c),
                    None => content.push(match &*r {
                        "lt" => '<',
                        "gt" => '>',
                        "amp" => '&',
                        "quot" => '"',
                        "apos" => '\'',
                        other => panic!("unknown entity &{other};"),
                    }),
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    content
}

/// quick-xml's `Reader` over `xml`, every event read and nothing kept (no text decoded, no
/// reference resolved): what reading the bytes as XML costs at quick-xml's speed, before any
/// result is built. Returns the number of events.
#[inline(never)]
pub(crate) fn quick_xml_events(xml: &str) -> usize {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut n = 0;
    loop {
        match reader.read_event().expect("quick-xml reads the calls") {
            Event::Eof => return n,
            e => {
                std::hint::black_box(&e);
                n += 1;
            }
        }
    }
}

/// xml-rs's `EventReader` (default configuration) over the call, collecting `<content>`.
pub(crate) fn xml_rs_content(xml: &str) -> String {
    use xml::reader::XmlEvent;
    let mut reader = xml::EventReader::from_str(xml);
    let mut content = String::new();
    let mut inside = false;
    loop {
        match reader.next().expect("xml-rs reads the call") {
            XmlEvent::StartElement { name, .. } => inside = name.local_name == "content",
            XmlEvent::EndElement { .. } => inside = false,
            XmlEvent::Characters(s) | XmlEvent::CData(s) | XmlEvent::Whitespace(s) if inside => {
                content.push_str(&s)
            }
            XmlEvent::EndDocument => break,
            _ => {}
        }
    }
    content
}

/// One memchr pass over all the bytes (for a byte that is not there): the ceiling.
pub(crate) fn memchr_scan(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}
