//! Floor 9: publishing. A published site's index and checksums ([`site`]) and the app's
//! Content-Security-Policy ([`csp`]).

pub mod csp;
pub mod site;
