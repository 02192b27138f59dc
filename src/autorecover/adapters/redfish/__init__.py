"""Out-of-band power through nodes' BMCs: a Redfish client, the operator's inventory, the port."""
