package io.rnic.verbs;

/**
 * Whether a device's QPs send ECN-capable packets (ECT(0) in the IP header's ECN field, RFC
 * 3168), as RoCEv2 NICs do when ECN is enabled, so that switches mark congestion instead of
 * dropping.
 */
public enum EcnMode {
    /** ECN-capable where the network marks with ECN (a simulated fabric with ECN on); not elsewhere. */
    AUTO,
    /** Always ECN-capable. */
    ON,
    /** Never ECN-capable: the ECN field stays 0. */
    OFF
}
