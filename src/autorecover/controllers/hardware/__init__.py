"""autorecover.controllers.hardware.controller"""
