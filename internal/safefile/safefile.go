// Package safefile opens the files a flag or a config field names with
// the checks every such file needs: a regular file (a FIFO or /dev/zero
// would block or never end), no larger than a cap, read through a reader
// that fails past the cap should the file grow while read.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"syscall"
)

// ErrTooLarge marks a file over its cap.
var ErrTooLarge = errors.New("over the size cap")

// File is an open regular file whose reads stop at the cap.
type File struct {
	f    *os.File
	r    io.Reader
	Size int64
}

// Open opens path for reading if it is a regular file of at most limit
// bytes. The file is opened non-blocking and checked again through its
// descriptor: a FIFO swapped in after the first check cannot block.
func Open(path string, limit int64) (*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, clean(err)
	}
	if err := regular(path, st, limit); err != nil {
		return nil, err
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, clean(err)
	}
	if err := regular(path, st, limit); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, r: &capReader{r: f, left: limit, path: path, limit: limit}, Size: st.Size()}, nil
}

// OpenRegular opens path for reading only if it is a regular file, of any
// size (for a reader that stops at its own cap). The check is on the
// opened descriptor, so a file swapped for a FIFO after a stat cannot slip
// in, and O_NONBLOCK keeps the open of a FIFO (which waits for a writer)
// from hanging; on a regular file it changes nothing.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, clean(err)
	}
	st, err := f.Stat()
	if err == nil {
		err = regular(path, st, math.MaxInt64)
	} else {
		err = clean(err)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func regular(path string, st fs.FileInfo, limit int64) error {
	switch {
	case st.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	case st.Size() > limit:
		return fmt.Errorf("%s: %w: %d bytes, at most %d are read", path, ErrTooLarge, st.Size(), limit)
	}
	return nil
}

func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads a whole regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, f.Size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// capReader fails past limit bytes: a file that grows while read.
type capReader struct {
	r           io.Reader
	left, limit int64
	path        string
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.err()
	}
	if c.left < math.MaxInt64 && int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		n, c.left = int(c.left), -1
		return n, c.err()
	}
	c.left -= int64(n)
	return n, err
}

func (c *capReader) err() error {
	return fmt.Errorf("%s: %w: it grew past %d bytes while read", c.path, ErrTooLarge, c.limit)
}

// clean drops the system call's name ("stat", "open") from err.
func clean(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot read %s: %v", pe.Path, pe.Err)
	}
	return err
}
