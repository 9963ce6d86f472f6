"""Report and deliver: class intake, feedback, LMS and CI routes."""
