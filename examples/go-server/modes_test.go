package main

import "testing"

// Every list spelling of atomic runs the batch as atomic; a list without an element, or with a
// mode this server does not implement, is still 501.
func TestBatchModeIsReadAsAList(t *testing.T) {
	srv := newTestServer(t)
	cases := []struct {
		lines []string
		want  int
	}{
		{[]string{"atomic"}, 200},
		{[]string{"atomic,"}, 200},
		{[]string{", atomic"}, 200},
		{[]string{"atomic, atomic"}, 200},
		{[]string{" atomic ,\t,atomic "}, 200},
		{[]string{"atomic", "atomic"}, 200},
		{[]string{","}, 501},
		{[]string{"atomic, references"}, 501},
		{[]string{"atomic", "references"}, 501},
		{[]string{"ATOMIC"}, 501},
		{[]string{"atomic", ""}, 200},
	}
	for _, c := range cases {
		var header []string
		for _, line := range c.lines {
			header = append(header, "Batch-Mode", line)
		}
		resp, _ := postBatch(t, srv, batchBody("GET /shelf/s1"), header...)
		if resp.StatusCode != c.want {
			t.Errorf("Batch-Mode %q: status %d, want %d", c.lines, resp.StatusCode, c.want)
		}
	}
}
