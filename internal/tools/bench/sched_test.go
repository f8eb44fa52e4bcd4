package bench

import "testing"

// TestParseCPUs: a comma-separated list, empty for none, numbers only.
func TestParseCPUs(t *testing.T) {
	if c, err := ParseCPUs(""); err != nil || c != nil {
		t.Errorf(`"": %v, %v`, c, err)
	}
	if c, err := ParseCPUs("1, 0"); err != nil || len(c) != 2 || c[0] != 1 || c[1] != 0 {
		t.Errorf(`"1, 0": %v, %v`, c, err)
	}
	for _, bad := range []string{"x", "1,", "-1", "1024"} {
		if _, err := ParseCPUs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
