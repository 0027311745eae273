"""Entire CLI external-agent plugin for Google Gemini CLI."""

__version__ = "0.1.0"
