// tlscheck reads flowagg's certificates the way an Antrea Agent does, with Go's crypto/x509 and
// crypto/tls (standard library only), and reports what it found as one JSON object per line:
//
//	tlscheck -ca ca.crt [-server server.crt] [-client client.crt -key client.key]
//	         [-servername flow-aggregator.flow-aggregator.svc] [-alpn h2] [-dial 127.0.0.1:14739 ...]
//
// Every certificate is parsed (Go refuses names it cannot read), the server and client certificates are
// verified against the CA for their usage (and the server's for -servername), and each -dial address gets
// a TLS handshake with the client certificate, TLS 1.2 minimum and the -alpn protocol, as grpc-go dials.
// The exit status is 1 when anything failed.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

type dials []string

func (d *dials) String() string     { return strings.Join(*d, ",") }
func (d *dials) Set(v string) error { *d = append(*d, v); return nil }

type result struct {
	Check   string `json:"check"`
	Target  string `json:"target"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	Subject string `json:"subject,omitempty"`
	Version string `json:"version,omitempty"`
	ALPN    string `json:"alpn,omitempty"`
}

var netDialer = net.Dialer{Timeout: 10 * time.Second}

func parse(path string) (*x509.Certificate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

func main() {
	caPath := flag.String("ca", "", "CA certificate (PEM)")
	serverPath := flag.String("server", "", "server certificate to verify (PEM)")
	clientPath := flag.String("client", "", "client certificate (PEM)")
	keyPath := flag.String("key", "", "client key (PEM)")
	serverName := flag.String("servername", "flow-aggregator.flow-aggregator.svc", "name the server certificate must hold")
	alpn := flag.String("alpn", "", "ALPN protocol to offer and require (h2 for gRPC)")
	var targets dials
	flag.Var(&targets, "dial", "address for a TLS handshake (repeatable)")
	flag.Parse()

	failed := false
	emit := func(r result) {
		if !r.OK {
			failed = true
		}
		line, _ := json.Marshal(r)
		fmt.Println(string(line))
	}

	ca, err := parse(*caPath)
	if err != nil {
		emit(result{Check: "parse", Target: *caPath, Error: err.Error()})
		os.Exit(1)
	}
	emit(result{Check: "parse", Target: *caPath, OK: true, Subject: ca.Subject.String()})
	roots := x509.NewCertPool()
	roots.AddCert(ca)

	verify := func(path string, opts x509.VerifyOptions) {
		if path == "" {
			return
		}
		cert, err := parse(path)
		if err != nil {
			emit(result{Check: "parse", Target: path, Error: err.Error()})
			return
		}
		emit(result{Check: "parse", Target: path, OK: true, Subject: cert.Subject.String()})
		opts.Roots = roots
		if _, err := cert.Verify(opts); err != nil {
			emit(result{Check: "verify", Target: path, Error: err.Error()})
			return
		}
		emit(result{Check: "verify", Target: path, OK: true, Subject: cert.Subject.String()})
	}
	verify(*serverPath, x509.VerifyOptions{DNSName: *serverName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	verify(*clientPath, x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})

	config := &tls.Config{RootCAs: roots, ServerName: *serverName, MinVersion: tls.VersionTLS12}
	if *clientPath != "" {
		pair, err := tls.LoadX509KeyPair(*clientPath, *keyPath)
		if err != nil {
			emit(result{Check: "load", Target: *clientPath, Error: err.Error()})
			os.Exit(1)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	if *alpn != "" {
		config.NextProtos = []string{*alpn}
	}
	for _, target := range targets {
		conn, err := tls.DialWithDialer(&netDialer, "tcp", target, config)
		if err != nil {
			emit(result{Check: "handshake", Target: target, Error: err.Error()})
			continue
		}
		state := conn.ConnectionState()
		r := result{Check: "handshake", Target: target, OK: true, Version: tls.VersionName(state.Version), ALPN: state.NegotiatedProtocol}
		if len(state.PeerCertificates) > 0 {
			r.Subject = state.PeerCertificates[0].Subject.String()
		}
		// With TLS 1.3 a refused client certificate shows only after the handshake, on the first read: the
		// server then closes. A gRPC server speaks first (HTTP/2 SETTINGS); an IPFIX collector stays silent.
		_ = conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		if _, err := conn.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			r.OK, r.Error = false, err.Error()
		}
		if *alpn != "" && state.NegotiatedProtocol != *alpn {
			r.OK, r.Error = false, fmt.Sprintf("negotiated ALPN %q, want %q", state.NegotiatedProtocol, *alpn)
		}
		conn.Close()
		emit(r)
	}
	if failed {
		os.Exit(1)
	}
}
