//! How an I/O error reads inside kura's messages, for every part that
//! words one (the store, targets, importers, commands): one definition, so
//! no part reaches into another for it.

/// An I/O error's text without the "(os error N)" tail that doubles it in chains.
pub fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
