// agent talks to flowagg's gRPC services with grpc-go, dialling as the Antrea Agent's FlowExporter does
// (grpc.NewClient with TLS credentials only: the CA, the shared client certificate, TLS 1.2 minimum and
// server name flow-aggregator.flow-aggregator.svc, which grpc-go also sends as :authority). The messages
// come from and go to files of length-delimited protobuf (a varint length, then the message), which the
// TypeScript tests write and read, so that the flows are marshalled and unmarshalled by Go's protobuf.
//
//	agent -mode export   -addr A -flows FILE [-total N] [-streams S] [-conns C] [-batch B] [-hold D] [-halfclose]
//	agent -mode getflows -addr A -request FILE -out FILE
//
// export sends the file's flows (cycling until -total) on S concurrent Export streams over C connections, B flows per
// ExportRequest (Antrea: 1, on one endless stream), and prints {"sent", "seconds", "code", "message"}.
// With -halfclose each stream is closed and its ExportResponse awaited, else the connection is closed.
// getflows makes one GetFlows call and writes each GetFlowsResponse to -out; it prints the final status.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "flowagg.test/agent/flowpb"
)

type outcome struct {
	Sent      int64   `json:"sent"`
	Received  int64   `json:"received"`
	Seconds   float64 `json:"seconds"`
	Code      string  `json:"code"`
	Message   string  `json:"message,omitempty"`
	Responses int     `json:"responses"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agent: "+format+"\n", args...)
	os.Exit(2)
}

func readDelimited(path string) [][]byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	var out [][]byte
	for len(raw) > 0 {
		n, k := binary.Uvarint(raw)
		if k <= 0 || uint64(len(raw)-k) < n {
			fail("%s: truncated length-delimited message", path)
		}
		out = append(out, raw[k:k+int(n)])
		raw = raw[k+int(n):]
	}
	return out
}

func dial(addr, ca, cert, key, serverName string) *grpc.ClientConn {
	config := &tls.Config{ServerName: serverName, MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			fail("%v", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			fail("%s: no certificate", ca)
		}
		config.RootCAs = roots
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			fail("%v", err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(config)))
	if err != nil {
		fail("%v", err)
	}
	return conn
}

func report(o outcome, err error) {
	st := status.Convert(err)
	o.Code, o.Message = st.Code().String(), st.Message()
	line, _ := json.Marshal(o)
	fmt.Println(string(line))
}

func export(conns []*grpc.ClientConn, flowsFile string, total int64, streams, batch int, halfClose bool, hold time.Duration) {
	var flows []*pb.Flow
	for _, b := range readDelimited(flowsFile) {
		f := &pb.Flow{}
		if err := proto.Unmarshal(b, f); err != nil {
			fail("%s: %v", flowsFile, err)
		}
		flows = append(flows, f)
	}
	if total <= 0 {
		total = int64(len(flows))
	}
	var next, sent atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for s := 0; s < streams; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream, err := pb.NewFlowExportServiceClient(conns[s%len(conns)]).Export(context.Background())
			if err != nil {
				once.Do(func() { firstErr = err })
				return
			}
			for {
				from := next.Add(int64(batch)) - int64(batch)
				if from >= total {
					break
				}
				req := &pb.ExportRequest{}
				for i := from; i < from+int64(batch) && i < total; i++ {
					req.Flows = append(req.Flows, flows[i%int64(len(flows))])
				}
				if err := stream.Send(req); err != nil {
					// io.EOF: the server ended the stream; its status comes from CloseAndRecv.
					if !errors.Is(err, io.EOF) {
						once.Do(func() { firstErr = err })
						return
					}
					_, err = stream.CloseAndRecv()
					once.Do(func() { firstErr = err })
					return
				}
				sent.Add(int64(len(req.Flows)))
			}
			time.Sleep(hold)
			if halfClose {
				if _, err := stream.CloseAndRecv(); err != nil {
					once.Do(func() { firstErr = err })
				}
			}
		}()
	}
	wg.Wait()
	report(outcome{Sent: sent.Load(), Seconds: time.Since(start).Seconds()}, firstErr)
}

func getFlows(conn *grpc.ClientConn, requestFile, outFile string) {
	requests := readDelimited(requestFile)
	if len(requests) != 1 {
		fail("%s: want one GetFlowsRequest, found %d", requestFile, len(requests))
	}
	req := &pb.GetFlowsRequest{}
	if err := proto.Unmarshal(requests[0], req); err != nil {
		fail("%s: %v", requestFile, err)
	}
	f, err := os.Create(outFile)
	if err != nil {
		fail("%v", err)
	}
	w := bufio.NewWriter(f)
	start := time.Now()
	stream, err := pb.NewFlowStreamServiceClient(conn).GetFlows(context.Background(), req)
	o := outcome{}
	for err == nil {
		var resp *pb.GetFlowsResponse
		if resp, err = stream.Recv(); err != nil {
			break
		}
		o.Responses++
		o.Received += int64(len(resp.Flows))
		b, _ := proto.Marshal(resp)
		w.Write(binary.AppendUvarint(nil, uint64(len(b))))
		w.Write(b)
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	w.Flush()
	f.Close()
	o.Seconds = time.Since(start).Seconds()
	report(o, err)
}

func main() {
	mode := flag.String("mode", "export", "export or getflows")
	addr := flag.String("addr", "", "host:port")
	ca := flag.String("ca", "", "CA certificate (PEM)")
	cert := flag.String("cert", "", "client certificate (PEM)")
	key := flag.String("key", "", "client key (PEM)")
	serverName := flag.String("servername", "flow-aggregator.flow-aggregator.svc", "TLS server name (and :authority)")
	flowsFile := flag.String("flows", "", "export: length-delimited Flow messages")
	total := flag.Int64("total", 0, "export: flows to send in all (default: the file's)")
	streams := flag.Int("streams", 1, "export: concurrent Export streams on the connection")
	batch := flag.Int("batch", 1, "export: flows per ExportRequest")
	halfClose := flag.Bool("halfclose", false, "export: half-close each stream and wait for its response")
	connections := flag.Int("conns", 1, "export: connections the streams are spread over")
	hold := flag.Duration("hold", 0, "export: how long streams stay open after their last flow")
	requestFile := flag.String("request", "", "getflows: one length-delimited GetFlowsRequest")
	outFile := flag.String("out", "", "getflows: where to write the responses")
	flag.Parse()
	conns := make([]*grpc.ClientConn, *connections)
	for i := range conns {
		conns[i] = dial(*addr, *ca, *cert, *key, *serverName)
		defer conns[i].Close()
	}
	switch *mode {
	case "export":
		export(conns, *flowsFile, *total, *streams, *batch, *halfClose, *hold)
	case "getflows":
		getFlows(conns[0], *requestFile, *outFile)
	default:
		fail("unknown mode %q", *mode)
	}
}
