//! Which addresses remote media may be fetched from: public unicast ones only. A question's
//! media URL is chosen by whoever asked, so without this check "load remote images" would let
//! an asker make the reviewer's machine request its own loopback services, the LAN, the
//! router or a cloud metadata endpoint (SSRF).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// True for an address on the public internet; false for loopback, private, link-local,
/// unique-local, shared (CGNAT), multicast, broadcast, unspecified, documentation, benchmark
/// and reserved ranges — IPv4 and IPv6, including IPv4 embedded in IPv6.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = ip.is_unspecified()
        || a == 0 // "this network", 0.0.0.0/8
        || ip.is_loopback() // 127.0.0.0/8
        || ip.is_private() // 10/8, 172.16/12, 192.168/16
        || ip.is_link_local() // 169.254/16 (cloud metadata lives here)
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT), 100.64/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments, 192.0.0/24
        || ip.is_documentation() // 192.0.2/24, 198.51.100/24, 203.0.113/24
        || (a == 198 && (b == 18 || b == 19)) // benchmarking, 198.18/15
        || ip.is_multicast() // 224/4
        || a >= 240; // reserved 240/4 and the broadcast address
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // Addresses that carry an IPv4 address are judged by it.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4); // ::ffff:a.b.c.d
    }
    let s = ip.segments();
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        // NAT64 well-known prefix 64:ff9b::/96: the gateway connects to the embedded address.
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        // 6to4 2002::/16: the relay reaches the embedded address.
        return is_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    let refused = ip.is_unspecified() // ::
        || ip.is_loopback() // ::1
        || s[0..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible ::a.b.c.d (deprecated) and the two above
        || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated, still routed internally)
        || (s[0] & 0xff00) == 0xff00 // multicast ff00::/8
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
        || (s[0] == 0x2001 && s[1] == 0) // Teredo 2001::/32 (tunnels to an obfuscated IPv4)
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard-only 100::/64
        || (s[0] == 0x2001 && s[1] < 0x0200 && s[1] != 0); // IETF special-purpose 2001::/23
    !refused
}

#[cfg(test)]
mod tests {
    use super::is_public;
    use std::net::IpAddr;

    #[test]
    fn only_public_unicast_addresses_are_fetched_from() {
        let table: &[(&str, bool)] = &[
            // public
            ("93.184.215.14", true),
            ("8.8.8.8", true),
            ("1.1.1.1", true),
            ("172.32.0.1", true),
            ("100.128.0.1", true),
            ("2606:4700:4700::1111", true),
            ("2a00:1450:4001:80b::200e", true),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::808:808", true),
            ("2002:808:808::1", true),
            // IPv4 refused
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("127.0.0.1", false),
            ("127.255.255.254", false),
            ("10.0.0.1", false),
            ("172.16.0.1", false),
            ("172.31.255.255", false),
            ("192.168.1.1", false),
            ("169.254.169.254", false),
            ("100.64.0.1", false),
            ("100.127.255.255", false),
            ("192.0.0.8", false),
            ("192.0.2.1", false),
            ("198.51.100.7", false),
            ("203.0.113.9", false),
            ("198.18.0.1", false),
            ("224.0.0.1", false),
            ("239.255.255.250", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            // IPv6 refused
            ("::", false),
            ("::1", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:10.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::127.0.0.1", false),
            ("64:ff9b::7f00:1", false),
            ("2002:7f00:1::1", false),
            ("2002:c0a8:101::1", false),
            ("fc00::1", false),
            ("fd12:3456:789a::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("ff05::2", false),
            ("2001:db8::1", false),
            ("2001::1", false),
            ("100::1", false),
            ("2001:10::1", false),
        ];
        for (address, public) in table {
            let ip: IpAddr = address.parse().unwrap();
            assert_eq!(is_public(ip), *public, "{address}");
        }
    }
}
