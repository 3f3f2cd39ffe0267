package measure

import "path/filepath"

// TetherEnv is the environment for a Tether process under test: its XDG
// state, configuration and data folders under dir, so that a run neither
// reads the user's settings nor leaves stores behind, and its log at
// level (warn or error, so logging costs nothing measurable).
func TetherEnv(dir, level string) []string {
	return []string{
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"TETHER_LOG_LEVEL=" + level,
	}
}
