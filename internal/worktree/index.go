package worktree

import (
	"bufio"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
)

// statData is what git's index records of a file as it was on disk
// (struct stat_data), each field truncated to 32 bits as git does.
type statData struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, uid, gid, size                 uint32
}

// indexEntry is one entry of an index optr writes.
type indexEntry struct {
	mode uint32
	oid  []byte
	path string
	stat statData
}

// baseIndex is the index of a tree written (or checked out) from s, whose
// entries were as stats[i] on disk: git's own clean checkout.
func (s *snapshot) baseIndex(stats []statData) []indexEntry {
	entries := make([]indexEntry, len(s.entries))
	for i, e := range s.entries {
		entries[i] = indexEntry{mode: e.mode, oid: e.oid, path: e.path, stat: stats[i]}
	}
	return entries
}

// writeIndex writes an index of entries (in index order, object ids of
// hashLen bytes) at path, owned by owner when it is set: a version 2
// index (the format every git reads; git rewrites it in its own version
// when it next writes). It is written beside path and renamed into
// place; for a tree just written, after every file of it, so that git's
// racy-timestamp check (an entry as new as the index is compared by
// content) covers a file an agent changes in the same clock tick as it
// was written.
func writeIndex(path string, hashLen int, entries []indexEntry, owner *Owner) (err error) {
	tmp := path + ".lock"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if owner != nil {
		if err := f.Chown(owner.UID, owner.GID); err != nil {
			return err
		}
	}
	var h hash.Hash = sha1.New()
	if hashLen == 32 {
		h = sha256.New()
	}
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
	be := binary.BigEndian
	var head [12]byte
	copy(head[:], "DIRC")
	be.PutUint32(head[4:], 2)
	be.PutUint32(head[8:], uint32(len(entries)))
	w.Write(head[:])
	buf := make([]byte, 0, 512)
	for _, e := range entries {
		st := e.stat
		buf = buf[:0]
		for _, v := range []uint32{st.ctimeSec, st.ctimeNsec, st.mtimeSec, st.mtimeNsec, st.dev, st.ino, e.mode, st.uid, st.gid, st.size} {
			buf = be.AppendUint32(buf, v)
		}
		buf = append(buf, e.oid...)
		buf = be.AppendUint16(buf, uint16(min(len(e.path), 0xfff)))
		buf = append(buf, e.path...)
		// 1 to 8 NULs: an entry's length is a multiple of 8.
		pad := 8 - len(buf)%8
		for range pad {
			buf = append(buf, 0)
		}
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := f.Write(h.Sum(nil)); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the index %s: %w", filepath.Base(path), err)
	}
	return nil
}
