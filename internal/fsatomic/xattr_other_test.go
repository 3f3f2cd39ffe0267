//go:build unix && !linux

package fsatomic

import "errors"

func setXattrPath(string, string, []byte) error { return errors.ErrUnsupported }

func getXattrPath(string, string) ([]byte, error) { return nil, errors.ErrUnsupported }
