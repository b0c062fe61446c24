package config

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens name for reading only if it is a regular file. The
// check is on the opened descriptor, so a file swapped for a FIFO after a
// stat cannot slip in, and O_NONBLOCK keeps the open of a FIFO (which
// waits for a writer) from hanging; on a regular file it changes nothing.
func openRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, cannotRead(err)
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		_ = f.Close()
		return nil, cannotRead(err)
	case st.IsDir():
		_ = f.Close()
		return nil, fmt.Errorf("%s is a directory", name)
	case !st.Mode().IsRegular():
		_ = f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, st.Mode().Type())
	}
	return f, nil
}
