module flowagg.test/tlscheck

go 1.22
