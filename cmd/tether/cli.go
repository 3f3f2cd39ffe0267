package main

// PLACEHOLDER until the headless CLI lands.
func runCall(args []string) int    { return 1 }
func runTools(args []string) int   { return 1 }
func runDoctor(args []string) int  { return 1 }
func runVersion(args []string) int { return 1 }
