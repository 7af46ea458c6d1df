module mixbatch.example/goserver

go 1.26
