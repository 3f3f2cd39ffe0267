package daemon

// closeServices releases the project's stores newEnv opened. Every
// command and background job the daemon started dies with it.
func (s *server) closeServices() {
	if s.stores != nil {
		if err := s.stores.Close(); err != nil {
			s.logger.Warn("closing the project's stores", "err", err)
		}
	}
}
