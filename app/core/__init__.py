"""What every layer of the app stands on: settings, database, security, HTTP guard, logging."""
